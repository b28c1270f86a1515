# corpus: a federated server weights each client's evaluation loss by its sample count with np.sum over a comprehension; the losses, evaluated without no_grad, keep their graphs in the list (every client's graph alive at once) and NumPy raises on them
# raises: RuntimeError: Can't call numpy() on Tensor that requires grad
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class Client:
    def __init__(self, model, n):
        self.model = model
        self.x = torch.randn(n, 4)
        self.y = torch.randint(0, 3, (n,))

    def test(self):
        loss = F.cross_entropy(self.model(self.x), self.y)
        return loss, self.x.shape[0]


def evaluate(clients):
    losses, sizes = [], []
    for c in clients:
        loss, n = c.test()
        losses.append(loss)  # expect: GG301
        sizes.append(n)
    return np.sum([n * l for n, l in zip(sizes, losses)]) / np.sum(sizes)  # expect: GG110


torch.manual_seed(0)
model = nn.Linear(4, 3)
print(evaluate([Client(model, 8), Client(model, 5)]))
