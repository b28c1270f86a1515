# corpus: DAC-style VQ-GAN codec sums a lambdas-weighted dict of losses; the quantizer's commitment loss is only reduced per item, so the summed generator loss is a batch vector
# raises: RuntimeError: grad can be implicitly created only for scalar outputs
# source: https://github.com/descriptinc/descript-audio-codec/issues/61
from dataclasses import dataclass, field

import torch
import torch.nn as nn
import torch.nn.functional as F


class VectorQuantize(nn.Module):
    def __init__(self, dim=4, codebook_size=8):
        super().__init__()
        self.codebook = nn.Embedding(codebook_size, dim)

    def forward(self, z_e):
        dist = torch.cdist(z_e, self.codebook.weight)
        z_q = self.codebook(dist.argmin(dim=-1))
        commitment_loss = F.mse_loss(z_e, z_q.detach(), reduction="none").mean([1])  # also: GG109
        codebook_loss = F.mse_loss(z_q, z_e.detach())
        z_q = z_e + (z_q - z_e).detach()  # straight-through
        return z_q, commitment_loss, codebook_loss


class DAC(nn.Module):
    def __init__(self, n=16, dim=4):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(n, 12), nn.ELU(), nn.Linear(12, dim))
        self.quantizer = VectorQuantize(dim)
        self.decoder = nn.Sequential(nn.Linear(dim, 12), nn.ELU(), nn.Linear(12, n), nn.Tanh())

    def forward(self, audio):
        z_q, commitment_loss, codebook_loss = self.quantizer(self.encoder(audio))
        return {"audio": self.decoder(z_q), "vq/commitment_loss": commitment_loss, "vq/codebook_loss": codebook_loss}


class Discriminator(nn.Module):
    def __init__(self, n=16):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(n, 12), nn.Linear(12, 8), nn.Linear(8, 1)])

    def forward(self, x):
        fmaps = []
        for i, layer in enumerate(self.layers):
            x = layer(x)
            if i < len(self.layers) - 1:
                x = F.leaky_relu(x, 0.1)
            fmaps.append(x)
        return fmaps


def mel_loss(recons, signal):
    spec = lambda s: torch.log(torch.fft.rfft(s, dim=-1).abs().clamp_min(1e-5))
    return F.l1_loss(spec(recons), spec(signal))


@dataclass
class State:
    generator: DAC = field(default_factory=DAC)
    discriminator: Discriminator = field(default_factory=Discriminator)

    def __post_init__(self):
        self.optimizer_g = torch.optim.AdamW(self.generator.parameters(), lr=1e-3, betas=(0.8, 0.99))
        self.optimizer_d = torch.optim.AdamW(self.discriminator.parameters(), lr=1e-3, betas=(0.8, 0.99))


def train_loop(state, signal, lambdas):
    output = {}
    out = state.generator(signal)
    recons = out["audio"]

    d_fake = state.discriminator(recons.detach())[-1]
    d_real = state.discriminator(signal)[-1]
    output["adv/disc_loss"] = (d_fake.pow(2) + (1 - d_real).pow(2)).mean()
    state.optimizer_d.zero_grad()
    output["adv/disc_loss"].backward()
    state.optimizer_d.step()

    fake_maps, real_maps = state.discriminator(recons), state.discriminator(signal)
    output["adv/gen_loss"] = (1 - fake_maps[-1]).pow(2).mean()
    output["adv/feat_loss"] = sum(F.l1_loss(f, r.detach()) for f, r in zip(fake_maps[:-1], real_maps[:-1]))
    output["mel/loss"] = mel_loss(recons, signal)
    output["vq/commitment_loss"] = out["vq/commitment_loss"]
    output["vq/codebook_loss"] = out["vq/codebook_loss"]
    output["loss"] = sum([v * output[k] for k, v in lambdas.items() if k in output])  # also: GG109

    state.optimizer_g.zero_grad()
    output["loss"].backward()  # expect: GG109
    state.optimizer_g.step()
    return {k: v.mean().item() for k, v in output.items()}


def train(num_iters=3, batch_size=4):
    lambdas = {"mel/loss": 15.0, "adv/feat_loss": 2.0, "adv/gen_loss": 1.0,
               "vq/commitment_loss": 0.25, "vq/codebook_loss": 1.0}
    state = State()
    for it in range(num_iters):
        signal = torch.sin(torch.linspace(0, 6.28, 16) * (it + 1)).repeat(batch_size, 1) * 0.5
        signal = signal + 0.05 * torch.randn_like(signal)
        print(it, train_loop(state, signal, lambdas))


if __name__ == "__main__":
    torch.manual_seed(0)
    train()
