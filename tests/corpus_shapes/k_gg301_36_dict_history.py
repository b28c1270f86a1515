# corpus: model returning a dict of outputs; per-term losses in a dict are appended to a history dict of lists with a for over items(), keeping every step's graph alive (silent memory growth)
# source: docs/rules/GG301.md (shape: 3, 6)
import torch
import torch.nn as nn
import torch.nn.functional as F


class AutoEncoder(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 2))
        self.decoder = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 6))

    def forward(self, x):
        z = self.encoder(x)
        return {"z": z, "recon": self.decoder(z)}


torch.manual_seed(0)
model = AutoEncoder()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
history = {"recon": [], "latent": []}
for step in range(5):
    x = torch.randn(16, 6)
    out = model(x)
    losses = {"recon": F.mse_loss(out["recon"], x), "latent": 1e-3 * out["z"].pow(2).mean()}
    total = sum(losses.values())
    optimizer.zero_grad()
    total.backward()
    optimizer.step()
    for name, value in losses.items():
        history[name].append(value)  # expect: GG301
summary = {name: sum(v.item() for v in values) / len(values) for name, values in history.items()}
