# corpus: module with a custom reset_parameters that writes weights in place under torch.no_grad() and nn.init
import math

import torch
import torch.nn as nn


class MyLinear(nn.Module):
    def __init__(self, d_in: int, d_out: int) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.empty(d_out, d_in))
        self.bias = nn.Parameter(torch.empty(d_out))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        nn.init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        with torch.no_grad():
            self.bias.zero_()
            self.weight[0].fill_(0.01)

    def forward(self, x):
        return x @ self.weight.t() + self.bias


torch.manual_seed(0)
layer = MyLinear(5, 3)
optimizer = torch.optim.Adam(layer.parameters(), lr=1e-2)
x = torch.randn(8, 5)
y = torch.randn(8, 3)

for step in range(3):
    optimizer.zero_grad()
    loss = ((layer(x) - y) ** 2).mean()
    loss.backward()
    optimizer.step()
    print(step, loss.item())
