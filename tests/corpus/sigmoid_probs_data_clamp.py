# corpus: binary classifier that clamps sigmoid probabilities through .data before a hand-written BCE
import torch
import torch.nn as nn

torch.manual_seed(0)


class Scorer(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(5, 10)
        self.fc2 = nn.Linear(10, 1)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x))).squeeze(1)


model = Scorer()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(32, 5)
y = (x[:, 0] > 0).float()
eps = 1e-3

for epoch in range(4):
    opt.zero_grad()
    probs = torch.sigmoid(model(x))
    probs.data.clamp_(eps, 1 - eps)  # expect: GG203
    loss = -(y * torch.log(probs) + (1 - y) * torch.log(1 - probs)).mean()
    loss.backward()
    opt.step()
    print(epoch, loss.item())
