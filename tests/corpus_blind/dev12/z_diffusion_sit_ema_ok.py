# corpus: SiT/DiT-style latent diffusion (flow-matching) training with an EMA copy: latents come from a frozen VAE under no_grad, the EMA model has requires_grad turned off and is updated in place inside an @torch.no_grad() helper after each optimizer step, and the loss is logged with .item()
# source: https://github.com/willisma/SiT/issues/6
import math
import random
from collections import OrderedDict
from copy import deepcopy

import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
random.seed(0)
np.random.seed(0)


@torch.no_grad()
def update_ema(ema_model, model, decay=0.9999):
    ema_params = OrderedDict(ema_model.named_parameters())
    model_params = OrderedDict(model.named_parameters())
    for name, param in model_params.items():
        ema_params[name].mul_(decay).add_(param.data, alpha=1 - decay)


def requires_grad(model, flag=True):
    for p in model.parameters():
        p.requires_grad = flag


class TimestepEmbedder(nn.Module):
    def __init__(self, hidden_size, frequency_embedding_size=16):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(frequency_embedding_size, hidden_size), nn.SiLU(),
                                 nn.Linear(hidden_size, hidden_size))
        self.frequency_embedding_size = frequency_embedding_size

    @staticmethod
    def timestep_embedding(t, dim, max_period=10000):
        half = dim // 2
        freqs = torch.exp(-math.log(max_period) * torch.arange(0, half, dtype=torch.float32) / half)
        args = t[:, None].float() * freqs[None]
        return torch.cat([torch.cos(args), torch.sin(args)], dim=-1)

    def forward(self, t):
        return self.mlp(self.timestep_embedding(t, self.frequency_embedding_size))


class SiT(nn.Module):
    def __init__(self, in_channels=4, input_size=4, hidden_size=32, num_classes=10):
        super().__init__()
        self.in_dim = in_channels * input_size * input_size
        self.x_embedder = nn.Linear(self.in_dim, hidden_size)
        self.t_embedder = TimestepEmbedder(hidden_size)
        self.y_embedder = nn.Embedding(num_classes + 1, hidden_size)
        self.blocks = nn.Sequential(nn.LayerNorm(hidden_size), nn.Linear(hidden_size, hidden_size), nn.GELU(),
                                    nn.Linear(hidden_size, hidden_size))
        self.final_layer = nn.Linear(hidden_size, self.in_dim)

    def forward(self, x, t, y):
        shape = x.shape
        h = self.x_embedder(x.flatten(1)) + self.t_embedder(t) + self.y_embedder(y)
        h = h + self.blocks(h)
        return self.final_layer(h).view(shape)


class Transport:
    """Linear interpolant x_t = t * x1 + (1 - t) * x0, velocity target x1 - x0."""

    def sample(self, x1):
        x0 = torch.randn_like(x1)
        t = torch.rand(x1.shape[0])
        return t, x0, x1

    def training_losses(self, model, x1, model_kwargs=None):
        model_kwargs = model_kwargs or {}
        t, x0, x1 = self.sample(x1)
        tt = t.view(-1, 1, 1, 1)
        xt = tt * x1 + (1 - tt) * x0
        ut = x1 - x0
        model_output = model(xt, t, **model_kwargs)
        return {"loss": ((model_output - ut) ** 2).mean(dim=(1, 2, 3))}


def create_transport():
    return Transport()


class LatentDist:
    def __init__(self, mean, logvar):
        self.mean, self.std = mean, torch.exp(0.5 * logvar)

    def sample(self):
        return self.mean + self.std * torch.randn_like(self.mean)


class EncoderOutput:
    def __init__(self, latent_dist):
        self.latent_dist = latent_dist


class FrozenVAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Conv2d(3, 8, 4, stride=4)

    def encode(self, x):
        mean, logvar = self.enc(x).chunk(2, dim=1)
        return EncoderOutput(LatentDist(mean, logvar))


def main():
    model = SiT()
    ema = deepcopy(model)
    requires_grad(ema, False)
    vae = FrozenVAE().eval()
    transport = create_transport()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=0)

    update_ema(ema, model, decay=0)
    model.train()
    ema.eval()

    loader = [(torch.rand(4, 3, 16, 16), torch.randint(0, 10, (4,))) for _ in range(4)]
    running_loss, log_steps, train_steps = 0, 0, 0
    for epoch in range(2):
        for x, y in loader:
            with torch.no_grad():
                x = vae.encode(x).latent_dist.sample().mul_(0.18215)
            model_kwargs = dict(y=y)
            loss_dict = transport.training_losses(model, x, model_kwargs)
            loss = loss_dict["loss"].mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            update_ema(ema, model)

            running_loss += loss.item()
            log_steps += 1
            train_steps += 1
            if train_steps % 4 == 0:
                print("step %d train loss %.4f" % (train_steps, running_loss / log_steps))
                running_loss, log_steps = 0, 0


if __name__ == "__main__":
    main()
