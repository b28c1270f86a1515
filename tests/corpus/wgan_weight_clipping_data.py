# corpus: original WGAN with critic weight clipping through p.data.clamp_ after the optimizer step
import torch
import torch.nn as nn

torch.manual_seed(0)

netG = nn.Sequential(nn.Linear(3, 16), nn.ReLU(), nn.Linear(16, 5))
netD = nn.Sequential(nn.Linear(5, 16), nn.ReLU(), nn.Linear(16, 1))
optD = torch.optim.RMSprop(netD.parameters(), lr=5e-5)
optG = torch.optim.RMSprop(netG.parameters(), lr=5e-5)
clip = 0.01

for it in range(3):
    for _ in range(2):
        real = torch.randn(8, 5)
        noise = torch.randn(8, 3)
        optD.zero_grad()
        errD = netD(netG(noise).detach()).mean() - netD(real).mean()
        errD.backward()
        optD.step()
        for p in netD.parameters():
            p.data.clamp_(-clip, clip)
    optG.zero_grad()
    errG = -netD(netG(torch.randn(8, 3))).mean()
    errG.backward()
    optG.step()
    print(it, errD.item(), errG.item())
