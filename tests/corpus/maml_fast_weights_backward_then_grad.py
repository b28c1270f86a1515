# corpus: a MAML-style meta step keeps fast weights in an OrderedDict of named parameters, calls backward on the query loss and then asks autograd.grad for the same loss (create_graph chosen at run time)
# raises: RuntimeError: Trying to backward through the graph a second time
from collections import OrderedDict

import torch
import torch.nn as nn
import torch.nn.functional as F


def functional_forward(x, weights):
    return F.linear(torch.tanh(F.linear(x, weights["0.weight"], weights["0.bias"])), weights["2.weight"], weights["2.bias"])


def meta_step(model, tasks, inner_lr, order):
    create_graph = order == 2
    for x_s, y_s, x_q, y_q in tasks:
        fast = OrderedDict(model.named_parameters())
        loss = F.cross_entropy(functional_forward(x_s, fast), y_s)
        grads = torch.autograd.grad(loss, fast.values(), create_graph=create_graph)
        fast = OrderedDict((name, p - inner_lr * g) for (name, p), g in zip(fast.items(), grads))
        query_loss = F.cross_entropy(functional_forward(x_q, fast), y_q)
        query_loss.backward()
        meta_grads = torch.autograd.grad(query_loss, fast.values(), create_graph=create_graph)  # expect: GG101
        print([g.norm().item() for g in meta_grads])


torch.manual_seed(0)
model = nn.Sequential(nn.Linear(5, 8), nn.Tanh(), nn.Linear(8, 3))
tasks = [(torch.randn(6, 5), torch.randint(0, 3, (6,)), torch.randn(6, 5), torch.randint(0, 3, (6,)))]
meta_step(model, tasks, 0.1, order=1)
