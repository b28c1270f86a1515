# corpus: a functional MAML step (torch.func.functional_call with fast weights) logs the query-gradient norm with autograd.grad, which frees the query graph, and then backpropagates the same query loss
# raises: RuntimeError: Trying to backward through the graph a second time
from collections import OrderedDict

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
meta_optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
support_x, support_y = torch.randn(6, 4), torch.randint(0, 3, (6,))
query_x, query_y = torch.randn(6, 4), torch.randint(0, 3, (6,))

params = OrderedDict(model.named_parameters())
inner_loss = F.cross_entropy(functional_call(model, params, (support_x,)), support_y)
grads = torch.autograd.grad(inner_loss, list(params.values()), create_graph=True)
fast_weights = OrderedDict((name, p - 0.4 * g) for (name, p), g in zip(params.items(), grads))
query_loss = F.cross_entropy(functional_call(model, fast_weights, (query_x,)), query_y)
q_grads = torch.autograd.grad(query_loss, list(fast_weights.values()))
print(torch.sqrt(sum(g.pow(2).sum() for g in q_grads)).item())
meta_optimizer.zero_grad()
query_loss.backward()  # expect: GG101
meta_optimizer.step()
