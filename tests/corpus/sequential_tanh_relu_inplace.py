# corpus: nn.Sequential autoencoder with ReLU(inplace=True) placed right after Tanh
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
import torch
import torch.nn as nn

torch.manual_seed(0)

autoencoder = nn.Sequential(
    nn.Linear(12, 8),
    nn.Tanh(),
    nn.ReLU(inplace=True),  # expect: GG107
    nn.Linear(8, 12),
)
optimizer = torch.optim.Adam(autoencoder.parameters(), lr=1e-3)
criterion = nn.MSELoss()
data = torch.randn(24, 12)

for epoch in range(3):
    optimizer.zero_grad()
    recon = autoencoder(data)
    loss = criterion(recon, data)
    loss.backward()
    optimizer.step()
    print(f"epoch {epoch} mse {loss.item():.4f}")
