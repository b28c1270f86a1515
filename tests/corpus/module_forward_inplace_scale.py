# corpus: custom module whose forward scales a sigmoid output in place with *=
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
import torch
import torch.nn as nn


class ScaledSigmoidHead(nn.Module):
    def __init__(self, d_in: int) -> None:
        super().__init__()
        self.fc = nn.Linear(d_in, 1)
        self.scale = 5.0

    def forward(self, x):
        out = torch.sigmoid(self.fc(x))
        out *= self.scale  # expect: GG107
        return out


torch.manual_seed(0)
head = ScaledSigmoidHead(7)
optimizer = torch.optim.SGD(head.parameters(), lr=0.01)
x = torch.randn(9, 7)
y = torch.rand(9, 1) * 5

for step in range(2):
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(head(x), y)
    loss.backward()
    optimizer.step()
    print(step, loss.item())
