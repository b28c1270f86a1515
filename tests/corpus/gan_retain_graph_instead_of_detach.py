# corpus: GAN whose D step keeps the generator graph with retain_graph=True instead of fake.detach():
# wasteful (the D step also backpropagates through G) but correct within one iteration, so no finding
import torch
import torch.nn as nn

torch.manual_seed(0)

G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 6))
D = nn.Sequential(nn.Linear(6, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
opt_G = torch.optim.Adam(G.parameters(), lr=1e-3)
opt_D = torch.optim.Adam(D.parameters(), lr=1e-3)
loss_fn = nn.BCEWithLogitsLoss()

for it in range(3):
    real = torch.randn(8, 6)
    fake = G(torch.randn(8, 4))
    opt_D.zero_grad()
    pred_real = D(real)
    pred_fake = D(fake)
    d_loss = loss_fn(pred_real, torch.ones_like(pred_real)) + loss_fn(pred_fake, torch.zeros_like(pred_fake))
    d_loss.backward(retain_graph=True)
    opt_D.step()

    opt_G.zero_grad()
    pred = D(fake)
    g_loss = loss_fn(pred, torch.ones_like(pred))
    g_loss.backward()
    opt_G.step()
    print(it, d_loss.item(), g_loss.item())
