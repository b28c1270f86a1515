# corpus: A 2-D Fourier neural operator maps 32 time slices of an FDTD field to the next 32; the relative LpLoss only reduces over the batch dimension, so with 32 channels it returns one loss per channel and backward gets a vector.
# raises: RuntimeError: grad can be implicitly created only for scalar outputs
# source: https://github.com/neuraloperator/neuraloperator/issues/103
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class SpectralConv2d(nn.Module):
    def __init__(self, in_channels, out_channels, modes1, modes2):
        super().__init__()
        self.modes1, self.modes2 = modes1, modes2
        scale = 1.0 / (in_channels * out_channels)
        self.weights1 = nn.Parameter(scale * torch.rand(in_channels, out_channels, modes1, modes2, dtype=torch.cfloat))
        self.weights2 = nn.Parameter(scale * torch.rand(in_channels, out_channels, modes1, modes2, dtype=torch.cfloat))

    def forward(self, x):
        b, _, h, w = x.shape
        x_ft = torch.fft.rfft2(x)
        out_ft = torch.zeros(b, self.weights1.shape[1], h, w // 2 + 1, dtype=torch.cfloat)
        out_ft[:, :, : self.modes1, : self.modes2] = torch.einsum(
            "bixy,ioxy->boxy", x_ft[:, :, : self.modes1, : self.modes2], self.weights1
        )
        out_ft[:, :, -self.modes1 :, : self.modes2] = torch.einsum(
            "bixy,ioxy->boxy", x_ft[:, :, -self.modes1 :, : self.modes2], self.weights2
        )
        return torch.fft.irfft2(out_ft, s=(h, w))


class FNO(nn.Module):
    def __init__(self, n_modes=(4, 4), hidden_channels=16, in_channels=32, out_channels=32, n_layers=2):
        super().__init__()
        self.lifting = nn.Conv2d(in_channels, hidden_channels, 1)
        self.convs = nn.ModuleList([SpectralConv2d(hidden_channels, hidden_channels, *n_modes) for _ in range(n_layers)])
        self.skips = nn.ModuleList([nn.Conv2d(hidden_channels, hidden_channels, 1) for _ in range(n_layers)])
        self.projection = nn.Sequential(nn.Conv2d(hidden_channels, 32, 1), nn.GELU(), nn.Conv2d(32, out_channels, 1))

    def forward(self, x):
        x = self.lifting(x)
        for conv, skip in zip(self.convs, self.skips):
            x = F.gelu(conv(x) + skip(x))
        return self.projection(x)


class LpLoss:
    """Relative Lp loss as in neuralop.training.losses (reduce_dims defaults to the batch dim)."""

    def __init__(self, d=2, p=2, reduce_dims=0, reductions="sum"):
        self.d, self.p = d, p
        self.reduce_dims = [reduce_dims] if isinstance(reduce_dims, int) else list(reduce_dims)
        self.reductions = [reductions] * len(self.reduce_dims) if isinstance(reductions, str) else reductions

    def reduce_all(self, x):
        for dim, red in zip(self.reduce_dims, self.reductions):
            x = torch.sum(x, dim=dim, keepdim=True) if red == "sum" else torch.mean(x, dim=dim, keepdim=True)
        return x

    def rel(self, x, y):
        diff = torch.norm(torch.flatten(x, start_dim=-self.d) - torch.flatten(y, start_dim=-self.d), p=self.p, dim=-1)
        ynorm = torch.norm(torch.flatten(y, start_dim=-self.d), p=self.p, dim=-1)
        return self.reduce_all(diff / ynorm).squeeze()

    def __call__(self, y_pred, y, **kwargs):
        return self.rel(y_pred, y)


class UnitGaussianNormalizer:
    def __init__(self, x, reduce_dim):
        self.mean = torch.mean(x, reduce_dim, keepdim=True)
        self.std = torch.std(x, reduce_dim, keepdim=True)

    def encode(self, x):
        return (x - self.mean) / (self.std + 1e-6)


def make_fdtd_blocks(n_sims=8, steps=64, res=16):
    t = torch.linspace(0, 1, steps)
    xs = torch.linspace(0, 1, res)
    field = []
    for _ in range(n_sims):
        k = torch.rand(1) * 4 + 1
        f = torch.sin(k * (xs[None, :, None] + xs[None, None, :]) - 6.0 * t[:, None, None])
        field.append(f)
    field = torch.stack(field)  # (sims, steps, res, res)
    return field[:, :32], field[:, 32:]


class Trainer:
    def __init__(self, model, n_epochs=2):
        self.model = model
        self.n_epochs = n_epochs
        self.optimizer = torch.optim.Adam(model.parameters(), lr=8e-3, weight_decay=1e-4)

    def train(self, train_loader, train_loss):
        for epoch in range(self.n_epochs):
            self.model.train()
            for x, y in train_loader:
                self.optimizer.zero_grad()
                out = self.model(x)
                loss = train_loss(out, y)
                loss.backward()  # expect: GG109
                self.optimizer.step()
            print(f"epoch {epoch} loss {loss.sum().item():.4f}")


def main():
    torch.manual_seed(0)
    x_train, y_train = make_fdtd_blocks()
    output_encoder = UnitGaussianNormalizer(y_train, reduce_dim=list(range(y_train.ndim)))
    y_train = output_encoder.encode(y_train)
    train_loader = DataLoader(TensorDataset(x_train, y_train), batch_size=4, shuffle=True)
    model = FNO(in_channels=32, out_channels=32)
    l2loss = LpLoss(d=2, p=2)
    Trainer(model).train(train_loader, l2loss)


if __name__ == "__main__":
    main()
