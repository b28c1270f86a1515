# corpus: RealNVP-style affine coupling rescales the tanh-squashed log-scale in place (/=) after tanh saved its output, so the flow's NLL backward finds a modified saved tensor
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/bayesiains/nflows/issues/89
import math

import torch
import torch.nn as nn


class AffineCouplingTransform(nn.Module):
    def __init__(self, features, hidden_features, mask):
        super().__init__()
        self.register_buffer("mask", mask)
        self.hidden_features = hidden_features
        self.transform_net = nn.Sequential(
            nn.Linear(features, hidden_features), nn.ReLU(),
            nn.Linear(hidden_features, 2 * features),
        )

    def forward(self, inputs):
        identity = inputs * self.mask
        transform_params = self.transform_net(identity)
        shift, unnormalized_scale = transform_params.chunk(2, dim=1)
        log_scale = torch.tanh(unnormalized_scale)
        log_scale /= math.sqrt(self.hidden_features)  # expect: GG107
        log_scale = log_scale * (1.0 - self.mask)
        shift = shift * (1.0 - self.mask)
        outputs = identity + (1.0 - self.mask) * (inputs * torch.exp(log_scale) + shift)
        logabsdet = log_scale.sum(dim=1)
        return outputs, logabsdet


class Flow(nn.Module):
    def __init__(self, features, hidden_features, num_layers):
        super().__init__()
        layers = []
        for i in range(num_layers):
            mask = torch.zeros(features)
            mask[i % 2::2] = 1.0
            layers.append(AffineCouplingTransform(features, hidden_features, mask))
        self.layers = nn.ModuleList(layers)

    def log_prob(self, inputs):
        z, total_logdet = inputs, torch.zeros(inputs.size(0))
        for layer in self.layers:
            z, logdet = layer(z)
            total_logdet = total_logdet + logdet
        base_log_prob = -0.5 * (z ** 2).sum(dim=1) - 0.5 * z.size(1) * math.log(2 * math.pi)
        return base_log_prob + total_logdet


def sample_two_moons(n):
    t = torch.rand(n) * math.pi
    upper = torch.stack([torch.cos(t), torch.sin(t)], dim=1)
    lower = torch.stack([1 - torch.cos(t), 0.5 - torch.sin(t)], dim=1)
    x = torch.cat([upper, lower])[torch.randperm(2 * n)]
    return torch.cat([x, 0.05 * torch.randn(2 * n, 2)], dim=1)


def train(flow, optimizer, num_iter, batch_size):
    for it in range(num_iter):
        x = sample_two_moons(batch_size // 2)
        optimizer.zero_grad()
        loss = -flow.log_prob(x).mean()
        loss.backward()  # also: GG107
        optimizer.step()
        print(f"iter {it} nll {loss.item():.3f}")


def main():
    torch.manual_seed(0)
    flow = Flow(features=4, hidden_features=16, num_layers=4)
    optimizer = torch.optim.Adam(flow.parameters(), lr=1e-3)
    train(flow, optimizer, num_iter=3, batch_size=32)


if __name__ == "__main__":
    main()
