# corpus: DeepSVG-style SVG autoencoder: after a short training run the interpolation helper decodes latent codes and converts the predicted control points to NumPy for drawing, without detach or no_grad, so .numpy() hits a tensor that requires grad
# raises: RuntimeError: Can't call numpy() on Tensor that requires grad
# source: https://github.com/alexandre01/deepsvg/issues/37
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class Config:
    max_seq_len: int = 12
    n_args: int = 4
    d_model: int = 32
    dim_z: int = 16
    learning_rate: float = 1e-3
    num_steps: int = 4


class SVGTransformer(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        in_dim = cfg.max_seq_len * cfg.n_args
        self.encoder = nn.Sequential(nn.Linear(in_dim, cfg.d_model), nn.ReLU(), nn.Linear(cfg.d_model, 2 * cfg.dim_z))
        self.decoder = nn.Sequential(nn.Linear(cfg.dim_z, cfg.d_model), nn.ReLU(), nn.Linear(cfg.d_model, in_dim))

    def encode(self, args):
        mu, logsigma = self.encoder(args.flatten(1)).chunk(2, dim=-1)
        return mu, logsigma

    def decode(self, z):
        return torch.tanh(self.decoder(z)).view(-1, self.cfg.max_seq_len, self.cfg.n_args)

    def forward(self, args):
        mu, logsigma = self.encode(args)
        z = mu + torch.randn_like(mu) * logsigma.exp()
        return {"args_logits": self.decode(z), "mu": mu, "logsigma": logsigma}


class SVGLoss(nn.Module):
    def forward(self, output, args, kl_weight=0.1):
        loss_args = F.mse_loss(output["args_logits"], args)
        mu, logsigma = output["mu"], output["logsigma"]
        loss_kl = -0.5 * torch.mean(1 + 2 * logsigma - mu.pow(2) - (2 * logsigma).exp())
        return {"loss": loss_args + kl_weight * loss_kl, "loss_args": loss_args, "loss_kl": loss_kl}


def train(model, cfg, dataset):
    loss_fn = SVGLoss()
    optimizer = torch.optim.AdamW(model.parameters(), cfg.learning_rate)
    for step in range(cfg.num_steps):
        for args in dataset:
            model.train()
            output = model(args)
            loss_dict = loss_fn(output, args)
            optimizer.zero_grad()
            loss_dict["loss"].backward()
            optimizer.step()
        print(step, {k: round(v.item(), 4) for k, v in loss_dict.items()})


def interpolate(model, svg1, svg2, n=5):
    model.eval()
    z1, _ = model.encode(svg1)
    z2, _ = model.encode(svg2)
    frames = []
    for alpha in np.linspace(0, 1, n):
        z = (1 - alpha) * z1 + alpha * z2
        points = model.decode(z)[0]
        frames.append(points.numpy())  # expect: GG110
    return frames


def main():
    cfg = Config()
    torch.manual_seed(0)
    model = SVGTransformer(cfg)
    dataset = [torch.rand(8, cfg.max_seq_len, cfg.n_args) * 2 - 1 for _ in range(3)]
    train(model, cfg, dataset)
    frames = interpolate(model, dataset[0][:1], dataset[1][:1])
    print(len(frames), frames[0].shape)


if __name__ == "__main__":
    main()
