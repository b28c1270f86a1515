# corpus: autoencoder with separate encoder/decoder optimizers; the decoder steps before the latent loss is backpropagated
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

enc = nn.Sequential(nn.Linear(12, 6), nn.Tanh())
dec = nn.Sequential(nn.Linear(6, 12), nn.Tanh(), nn.Linear(12, 12))
opt_enc = torch.optim.Adam(enc.parameters(), lr=1e-3)
opt_dec = torch.optim.Adam(dec.parameters(), lr=1e-3)
data = torch.randn(20, 12)

for epoch in range(2):
    z = enc(data)
    recon = dec(z)
    recon_loss = F.mse_loss(recon, data)
    cycle_loss = F.mse_loss(enc(recon), z.detach())
    opt_enc.zero_grad()
    opt_dec.zero_grad()
    recon_loss.backward(retain_graph=True)
    opt_dec.step()  # expect: GG111
    cycle_loss.backward()
    opt_enc.step()
    print(epoch, recon_loss.item(), cycle_loss.item())
