# corpus: GAN whose author calls fake.detach() as a statement believing it detaches in place, then trains D on fake
# raises: RuntimeError: Trying to backward through the graph a second time
import torch
import torch.nn as nn

torch.manual_seed(0)

gen = nn.Sequential(nn.Linear(3, 12), nn.ReLU(), nn.Linear(12, 5))
disc = nn.Sequential(nn.Linear(5, 12), nn.ReLU(), nn.Linear(12, 1), nn.Sigmoid())
g_opt = torch.optim.Adam(gen.parameters(), lr=1e-3)
d_opt = torch.optim.Adam(disc.parameters(), lr=1e-3)
criterion = nn.BCELoss()
ones = torch.ones(6, 1)
zeros = torch.zeros(6, 1)

for it in range(2):
    real = torch.randn(6, 5)
    fake = gen(torch.randn(6, 3))
    fake.detach()  # expect: GG112
    d_opt.zero_grad()
    d_loss = criterion(disc(real), ones) + criterion(disc(fake), zeros)  # expect: GG105
    d_loss.backward()
    d_opt.step()
    g_opt.zero_grad()
    g_loss = criterion(disc(fake), ones)
    g_loss.backward()
    g_opt.step()
    print(it, d_loss.item(), g_loss.item())
