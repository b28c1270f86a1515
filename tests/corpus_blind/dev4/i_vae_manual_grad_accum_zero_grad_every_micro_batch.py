# corpus: Lightning-style VAE module with manual optimization and gradient accumulation: g_opt.zero_grad() runs on every micro-batch while g_opt.step() only runs every accumulate_grad_batches, so each step applies only the last micro-batch's gradient
# source: https://github.com/gaozhihan/PreDiff/issues/32
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class OptimConfig:
    lr: float = 1e-3
    micro_batch_size: int = 2
    total_batch_size: int = 8
    gradient_clip_val: float = 1.0
    kl_weight: float = 1e-3
    max_epochs: int = 2

    @property
    def accumulate_grad_batches(self):
        return self.total_batch_size // self.micro_batch_size


class DiagonalGaussianDistribution:
    def __init__(self, parameters):
        self.mean, logvar = torch.chunk(parameters, 2, dim=1)
        self.logvar = torch.clamp(logvar, -30.0, 20.0)
        self.std = torch.exp(0.5 * self.logvar)

    def sample(self):
        return self.mean + self.std * torch.randn_like(self.mean)

    def kl(self):
        return 0.5 * torch.sum(self.mean.pow(2) + self.logvar.exp() - 1.0 - self.logvar, dim=1)


class AutoencoderKL(nn.Module):
    def __init__(self, in_dim=32, latent_dim=4, hidden=32):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(in_dim, hidden), nn.SiLU(), nn.Linear(hidden, 2 * latent_dim))
        self.decoder = nn.Sequential(nn.Linear(latent_dim, hidden), nn.SiLU(), nn.Linear(hidden, in_dim))

    def forward(self, sample, sample_posterior=True, return_posterior=True):
        posterior = DiagonalGaussianDistribution(self.encoder(sample))
        z = posterior.sample() if sample_posterior else posterior.mean
        dec = self.decoder(z)
        return (dec, posterior) if return_posterior else dec


class LPIPSWithKL(nn.Module):
    """Reconstruction loss with a learned output log-variance plus a KL term (no perceptual net here)."""

    def __init__(self, kl_weight):
        super().__init__()
        self.kl_weight = kl_weight
        self.logvar = nn.Parameter(torch.zeros(()))

    def forward(self, inputs, reconstructions, posterior, split="train"):
        rec_loss = torch.abs(inputs - reconstructions)
        nll_loss = rec_loss / torch.exp(self.logvar) + self.logvar
        nll_loss = nll_loss.sum() / nll_loss.shape[0]
        kl_loss = posterior.kl().mean()
        loss = nll_loss + self.kl_weight * kl_loss
        log = {
            f"{split}/total_loss": loss.item(),
            f"{split}/rec_loss": rec_loss.mean().item(),
            f"{split}/kl_loss": kl_loss.item(),
        }
        return loss, log


class VAEPLModule:
    def __init__(self, cfg: OptimConfig):
        self.cfg = cfg
        self.accumulate_grad_batches = cfg.accumulate_grad_batches
        self.torch_nn_module = AutoencoderKL()
        self.loss = LPIPSWithKL(cfg.kl_weight)
        self.g_opt = torch.optim.Adam(
            list(self.torch_nn_module.parameters()) + list(self.loss.parameters()), lr=cfg.lr
        )
        self.global_step = 0

    def get_input(self, batch):
        return batch.flatten(1).contiguous()

    def __call__(self, target):
        return self.torch_nn_module(sample=target, sample_posterior=True, return_posterior=True)

    def clip_gradients(self, optimizer, gradient_clip_val):
        params = [p for group in optimizer.param_groups for p in group["params"]]
        torch.nn.utils.clip_grad_norm_(params, gradient_clip_val)

    def training_step(self, batch, batch_idx):
        target = self.get_input(batch)
        pred, posterior = self(target)
        aeloss, log_dict_ae = self.loss(target, pred, posterior, split="train")
        self.g_opt.zero_grad()  # expect: GG201
        aeloss.backward()
        if (batch_idx + 1) % self.accumulate_grad_batches == 0:
            self.clip_gradients(self.g_opt, self.cfg.gradient_clip_val)
            self.g_opt.step()  # also: GG201
            self.global_step += 1
        return log_dict_ae


def make_batches(num_batches, micro_batch_size):
    return [torch.rand(micro_batch_size, 1, 4, 8) for _ in range(num_batches)]


def fit(module, batches, max_epochs):
    for epoch in range(max_epochs):
        running = 0.0
        for batch_idx, batch in enumerate(batches):
            log = module.training_step(batch, batch_idx)
            running += log["train/total_loss"]
        print(f"epoch {epoch}: steps={module.global_step} mean loss={running / len(batches):.4f}")


def main():
    torch.manual_seed(0)
    cfg = OptimConfig()
    module = VAEPLModule(cfg)
    batches = make_batches(num_batches=8, micro_batch_size=cfg.micro_batch_size)
    fit(module, batches, cfg.max_epochs)


if __name__ == "__main__":
    main()
