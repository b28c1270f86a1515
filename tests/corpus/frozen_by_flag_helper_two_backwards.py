# corpus: a set_requires_grad(net, flag) helper freezes D for the G step, whose two losses share one forward and are backpropagated one after the other
# raises: RuntimeError: Trying to backward through the graph a second time
import torch
import torch.nn as nn

torch.manual_seed(0)


def set_requires_grad(net, flag=False):
    for p in net.parameters():
        p.requires_grad = flag


G = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 8))
D = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1))
opt_g = torch.optim.Adam(G.parameters(), lr=1e-3)

for step in range(2):
    set_requires_grad(D, False)
    fake = G(torch.randn(4, 4))
    adv = -D(fake).mean()
    rec = fake.pow(2).mean()
    opt_g.zero_grad()
    adv.backward()
    rec.backward()  # expect: GG102
    opt_g.step()
