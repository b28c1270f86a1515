# gradguard reports GG203 (data-mutation-of-saved-tensor) on line 9.
import torch
import torch.nn as nn

torch.manual_seed(0)
layer = nn.Linear(4, 4)
x = torch.randn(8, 4)
gate = torch.sigmoid(layer(x))
gate.data.clamp_(0.2, 0.8)
loss = (gate * x).sum()
loss.backward()
