# corpus: MLP regression that calls loss.backward() a second time to log the gradient norm
# raises: RuntimeError: Trying to backward through the graph a second time
import torch
import torch.nn as nn

torch.manual_seed(0)


class MLP(nn.Module):
    def __init__(self, d_in: int, d_hidden: int) -> None:
        super().__init__()
        self.fc1 = nn.Linear(d_in, d_hidden)
        self.fc2 = nn.Linear(d_hidden, 1)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


model = MLP(8, 16)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
criterion = nn.MSELoss()
x = torch.randn(32, 8)
y = torch.randn(32, 1)

for epoch in range(3):
    optimizer.zero_grad()
    pred = model(x)
    loss = criterion(pred, y)
    loss.backward()
    optimizer.step()
    if epoch % 1 == 0:
        # "refresh" the gradients for the norm log
        optimizer.zero_grad()
        loss.backward()  # expect: GG101
        total_norm = sum(p.grad.norm() ** 2 for p in model.parameters()) ** 0.5
        print(f"epoch {epoch} loss {loss.item():.4f} grad-norm {total_norm:.4f}")
