# corpus: conditional diffusion compression model (CDC shape): the UNet ResnetBlock adds its skip connection with `h += x` in place on the ReLU output, which ReLU saved for its backward, so the denoising loss of the Gaussian diffusion trainer fails on backward
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/buggyyang/CDC_compression/issues/1
import math
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


class SinusoidalPosEmb(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, t):
        half = self.dim // 2
        freqs = torch.exp(torch.arange(half) * -(math.log(10000) / (half - 1)))
        args = t[:, None].float() * freqs[None]
        return torch.cat([args.sin(), args.cos()], dim=-1)


class ResnetBlock(nn.Module):
    def __init__(self, dim, time_dim):
        super().__init__()
        self.mlp = nn.Linear(time_dim, dim)
        self.block1 = nn.Conv2d(dim, dim, 3, padding=1)
        self.block2 = nn.Conv2d(dim, dim, 3, padding=1)

    def forward(self, x, t_emb):
        h = self.block1(x) + self.mlp(t_emb)[:, :, None, None]
        h = F.relu(self.block2(h))
        h += x  # expect: GG107
        return h


class Unet(nn.Module):
    def __init__(self, channels=3, dim=8, context_dim=4):
        super().__init__()
        self.time_mlp = nn.Sequential(SinusoidalPosEmb(dim), nn.Linear(dim, dim), nn.ReLU())
        self.init_conv = nn.Conv2d(channels + context_dim, dim, 3, padding=1)
        self.blocks = nn.ModuleList([ResnetBlock(dim, dim) for _ in range(2)])
        self.final_conv = nn.Conv2d(dim, channels, 1)

    def forward(self, x, t, context):
        t_emb = self.time_mlp(t)
        h = self.init_conv(torch.cat([x, context], dim=1))
        for block in self.blocks:
            h = block(h, t_emb)
        return self.final_conv(h)


class ContextEncoder(nn.Module):
    def __init__(self, channels=3, context_dim=4):
        super().__init__()
        self.enc = nn.Conv2d(channels, context_dim, 3, padding=1)

    def forward(self, x):
        return torch.tanh(self.enc(x))


@dataclass
class DiffusionConfig:
    timesteps: int = 50
    beta_start: float = 1e-4
    beta_end: float = 0.02


class GaussianDiffusion(nn.Module):
    def __init__(self, denoise_fn, context_fn, config):
        super().__init__()
        self.denoise_fn, self.context_fn, self.config = denoise_fn, context_fn, config
        betas = torch.linspace(config.beta_start, config.beta_end, config.timesteps)
        alphas_cumprod = torch.cumprod(1.0 - betas, dim=0)
        self.register_buffer("sqrt_alphas_cumprod", alphas_cumprod.sqrt())
        self.register_buffer("sqrt_one_minus_alphas_cumprod", (1.0 - alphas_cumprod).sqrt())

    def q_sample(self, x_start, t, noise):
        return (self.sqrt_alphas_cumprod[t][:, None, None, None] * x_start
                + self.sqrt_one_minus_alphas_cumprod[t][:, None, None, None] * noise)

    def p_losses(self, x_start, t):
        noise = torch.randn_like(x_start)
        x_noisy = self.q_sample(x_start, t, noise)
        context = self.context_fn(x_start)
        return F.mse_loss(self.denoise_fn(x_noisy, t, context), noise)

    def forward(self, x):
        t = torch.randint(0, self.config.timesteps, (x.shape[0],))
        return self.p_losses(x, t)


class Trainer:
    def __init__(self, diffusion, lr=1e-4):
        self.model = diffusion
        self.opt = torch.optim.Adam(diffusion.parameters(), lr=lr)

    def train_step(self, batch):
        self.opt.zero_grad()
        loss = self.model(batch)
        loss.backward()  # also: GG107
        self.opt.step()
        return loss.item()

    def train(self, batches):
        for step, batch in enumerate(batches):
            print(f"step {step} loss {self.train_step(batch):.4f}")


def main():
    torch.manual_seed(0)
    diffusion = GaussianDiffusion(Unet(), ContextEncoder(), DiffusionConfig())
    Trainer(diffusion).train([torch.randn(2, 3, 8, 8) for _ in range(3)])


if __name__ == "__main__":
    main()
