# corpus: correct: a stateful Learner backpropagates each fresh loss once and reads the gradient norm from p.grad instead of a second pass
# source: docs/rules/GG101.md (shape: 5, 1)
import torch
import torch.nn as nn
import torch.nn.functional as F


class Learner:
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer
        self.last_loss = None
        self.grad_norms = []

    def grad_norm(self):
        return torch.sqrt(sum(p.grad.pow(2).sum() for p in self.model.parameters())).item()

    def step(self, x, y):
        self.optimizer.zero_grad()
        self.last_loss = F.mse_loss(self.model(x), y)
        self.last_loss.backward()
        self.grad_norms.append(self.grad_norm())
        self.optimizer.step()
        return self.last_loss.item()


torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
learner = Learner(model, torch.optim.SGD(model.parameters(), lr=0.1))
x = torch.randn(6, 4)
y = torch.randn(6, 1)
for it in range(3):
    learner.step(x, y)
print(learner.grad_norms)
