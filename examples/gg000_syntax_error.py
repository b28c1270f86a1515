# gradguard reports GG000 (syntax-error) on line 7.

import torch

loss = (torch.ones(3, requires_grad=True) * 2).sum()
loss.backward()
print "loss", loss.item()
