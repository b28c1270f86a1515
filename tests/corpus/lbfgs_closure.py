# corpus: L-BFGS fit whose closure recomputes the forward pass on every call (backward runs many times, each on a new graph)
import torch
import torch.nn as nn

torch.manual_seed(0)

x = torch.linspace(-1, 1, 25).unsqueeze(1)
y = 3 * x ** 3 - x + 0.05 * torch.randn(25, 1)
model = nn.Sequential(nn.Linear(1, 10), nn.Tanh(), nn.Linear(10, 1))
optimizer = torch.optim.LBFGS(model.parameters(), lr=0.5, max_iter=5)
criterion = nn.MSELoss()


def closure():
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    return loss


for step in range(3):
    loss = optimizer.step(closure)
    print(step, loss.item())
