# corpus: training loop that converts the loss to a Python float too early and then calls backward on it
# raises: AttributeError: 'float' object has no attribute 'backward'
import torch
import torch.nn as nn

torch.manual_seed(0)

model = nn.Sequential(nn.Linear(5, 10), nn.ReLU(), nn.Linear(10, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
criterion = nn.MSELoss()
X = torch.randn(40, 5)
Y = X.sum(dim=1, keepdim=True)

for epoch in range(3):
    optimizer.zero_grad()
    loss = criterion(model(X), Y).item()
    print(f"epoch {epoch}: loss {loss:.4f}")
    loss.backward()  # expect: GG106
    optimizer.step()
