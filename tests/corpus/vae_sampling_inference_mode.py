# corpus: tiny VAE decoder trained, then samples drawn under torch.inference_mode() and converted with .numpy()
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)

decoder = nn.Sequential(nn.Linear(2, 12), nn.ReLU(), nn.Linear(12, 6), nn.Sigmoid())
encoder = nn.Sequential(nn.Linear(6, 12), nn.ReLU(), nn.Linear(12, 4))
optimizer = torch.optim.Adam([*encoder.parameters(), *decoder.parameters()], lr=1e-3)
data = torch.rand(20, 6)

for epoch in range(3):
    mu, logvar = encoder(data).chunk(2, dim=1)
    z = mu + torch.randn_like(mu) * (0.5 * logvar).exp()
    recon = decoder(z)
    loss = nn.functional.binary_cross_entropy(recon, data) - 0.01 * (1 + logvar - mu ** 2 - logvar.exp()).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

with torch.inference_mode():
    samples = decoder(torch.randn(5, 2)).numpy()
print(np.round(samples, 2).shape, loss.item())
