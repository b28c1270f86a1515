# gradguard reports GG107 (inplace-on-saved-tensor) on line 9.
import torch
import torch.nn as nn

torch.manual_seed(0)
layer = nn.Linear(4, 3)
x = torch.randn(2, 4)
probs = torch.sigmoid(layer(x))
probs.mul_(2)
loss = probs.sum()
loss.backward()
