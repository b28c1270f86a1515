# corpus: two losses over a shared encoder backpropagated together with torch.autograd.backward([l1, l2])
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

enc = nn.Sequential(nn.Linear(7, 14), nn.Tanh())
dec = nn.Linear(14, 7)
cls = nn.Linear(14, 2)
optimizer = torch.optim.SGD([*enc.parameters(), *dec.parameters(), *cls.parameters()], lr=0.05)
x = torch.randn(9, 7)
y = torch.randint(0, 2, (9,))

for step in range(3):
    optimizer.zero_grad()
    z = enc(x)
    recon_loss = F.mse_loss(dec(z), x)
    cls_loss = F.cross_entropy(cls(z), y)
    torch.autograd.backward([recon_loss, cls_loss])
    optimizer.step()
    print(step, recon_loss.item(), cls_loss.item())
