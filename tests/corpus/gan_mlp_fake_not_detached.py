# corpus: minimal MLP GAN on 2-D Gaussian data; the discriminator step uses the generator output without detach
# raises: RuntimeError: Trying to backward through the graph a second time
import torch
import torch.nn as nn

torch.manual_seed(0)

latent = 4
G = nn.Sequential(nn.Linear(latent, 16), nn.ReLU(), nn.Linear(16, 2))
D = nn.Sequential(nn.Linear(2, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
opt_g = torch.optim.Adam(G.parameters(), lr=2e-4, betas=(0.5, 0.999))
opt_d = torch.optim.Adam(D.parameters(), lr=2e-4, betas=(0.5, 0.999))
bce = nn.BCEWithLogitsLoss()

for it in range(3):
    real = torch.randn(16, 2) * 0.5 + 1.0
    z = torch.randn(16, latent)
    fake = G(z)

    # --- discriminator step ---
    opt_d.zero_grad()
    d_real = D(real)
    d_fake = D(fake)  # expect: GG105
    d_loss = bce(d_real, torch.ones_like(d_real)) + bce(d_fake, torch.zeros_like(d_fake))
    d_loss.backward()
    opt_d.step()

    # --- generator step ---
    opt_g.zero_grad()
    g_out = D(fake)
    g_loss = bce(g_out, torch.ones_like(g_out))
    g_loss.backward()
    opt_g.step()
    print(f"it {it}: D {d_loss.item():.3f} G {g_loss.item():.3f}")
