# corpus: first-order MAML over the rows of a task batch with functional weights from OrderedDict(named_parameters()); the query loss is backpropagated, then autograd.grad is asked for the same loss's gradients
# raises: RuntimeError: Trying to backward through the graph a second time
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


def meta_step(model, tasks, labels, inner_lr=0.1):
    task_grads = []
    for task in tasks:
        support, query = task[:3], task[3:]
        weights = OrderedDict(model.named_parameters())
        loss = F.cross_entropy(model.functional_forward(support, weights), labels)
        grads = torch.autograd.grad(loss, weights.values())
        weights = OrderedDict((n, w - inner_lr * g) for (n, w), g in zip(weights.items(), grads))
        query_loss = F.cross_entropy(model.functional_forward(query, weights), labels)
        query_loss.backward()
        task_grads.append(torch.autograd.grad(query_loss, weights.values()))  # expect: GG101
    return task_grads


torch.manual_seed(0)
model = Net()
meta_step(model, torch.randn(2, 6, 8), torch.tensor([0, 1, 2]))
