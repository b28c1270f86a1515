# gradguard reports GG110 (numpy-on-grad-tensor) on line 19.
import torch
import torch.nn as nn


class Regressor(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(x)


torch.manual_seed(0)
model = Regressor()
x = torch.randn(8, 4)
pred = model(x)
scores = pred.numpy()
