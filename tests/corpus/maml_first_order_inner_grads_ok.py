# corpus: first-order MAML: the inner step's gradients are taken without create_graph on purpose (constant in the fast weights), and each task's query loss is backpropagated once
from collections import OrderedDict

import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(8, 3)

    def functional_forward(self, x, weights):
        return F.linear(x, weights["fc.weight"], weights["fc.bias"])


def meta_step(model, optimizer, tasks, labels, inner_lr=0.1):
    optimizer.zero_grad()
    for task in tasks:
        support, query = task[:3], task[3:]
        weights = OrderedDict(model.named_parameters())
        loss = F.cross_entropy(model.functional_forward(support, weights), labels)
        grads = torch.autograd.grad(loss, weights.values())
        weights = OrderedDict((n, w - inner_lr * g) for (n, w), g in zip(weights.items(), grads))
        query_loss = F.cross_entropy(model.functional_forward(query, weights), labels)
        query_loss.backward()
    optimizer.step()


torch.manual_seed(0)
model = Net()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
for _ in range(2):
    meta_step(model, optimizer, torch.randn(2, 6, 8), torch.tensor([0, 1, 2]))
assert model.fc.weight.grad is not None
