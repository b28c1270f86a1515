# corpus: class-conditional DDPM trainer with noise-schedule buffers, condition dropout, gradient accumulation logged with .item(), an EMA copy updated in place with lerp_ under no_grad, and classifier-free-guided sampling from the EMA model turned into numpy
# source: https://github.com/lucidrains/ema-pytorch/pull/2
import copy
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class EMA:
    def __init__(self, model, beta=0.9, update_after_step=2):
        self.online_model = model
        self.ema_model = copy.deepcopy(model)
        self.ema_model.requires_grad_(False)
        self.beta, self.update_after_step, self.step = beta, update_after_step, 0

    @torch.no_grad()
    def update(self):
        self.step += 1
        pairs = zip(self.ema_model.parameters(), self.online_model.parameters())
        if self.step <= self.update_after_step:
            for ema_p, p in pairs:
                ema_p.copy_(p)
            return
        for ema_p, p in pairs:
            ema_p.lerp_(p, 1.0 - self.beta)


class Denoiser(nn.Module):
    def __init__(self, dim=4, num_classes=3, hidden=32):
        super().__init__()
        self.null_class = num_classes
        self.class_emb = nn.Embedding(num_classes + 1, hidden)
        self.net = nn.Sequential(nn.Linear(dim + hidden, hidden), nn.SiLU(), nn.Linear(hidden, dim))
        self.hidden = hidden

    def time_emb(self, t):
        freqs = torch.exp(-math.log(1000.0) * torch.arange(self.hidden // 2) / (self.hidden // 2))
        args = t.float()[:, None] * freqs[None]
        return torch.cat([args.sin(), args.cos()], dim=-1)

    def forward(self, x, t, y):
        return self.net(torch.cat([x, self.time_emb(t) + self.class_emb(y)], dim=-1))


class GaussianDiffusion(nn.Module):
    def __init__(self, model, timesteps=20, cond_drop_prob=0.2):
        super().__init__()
        self.model, self.num_timesteps, self.cond_drop_prob = model, timesteps, cond_drop_prob
        betas = torch.linspace(1e-4, 0.2, timesteps)
        alphas_cumprod = torch.cumprod(1.0 - betas, dim=0)
        self.register_buffer("betas", betas)
        self.register_buffer("alphas_cumprod", alphas_cumprod)
        self.register_buffer("sqrt_alphas_cumprod", alphas_cumprod.sqrt())
        self.register_buffer("sqrt_one_minus_alphas_cumprod", (1.0 - alphas_cumprod).sqrt())

    def q_sample(self, x0, t, noise):
        return self.sqrt_alphas_cumprod[t, None] * x0 + self.sqrt_one_minus_alphas_cumprod[t, None] * noise

    def p_losses(self, x0, y):
        t = torch.randint(0, self.num_timesteps, (x0.shape[0],))
        noise = torch.randn_like(x0)
        drop = torch.rand(y.shape) < self.cond_drop_prob
        y = y.masked_fill(drop, self.model.null_class)
        return F.mse_loss(self.model(self.q_sample(x0, t, noise), t, y), noise)

    @torch.no_grad()
    def sample(self, model, y, guidance_scale=3.0):
        x = torch.randn(y.shape[0], 4)
        null = torch.full_like(y, model.null_class)
        for i in reversed(range(self.num_timesteps)):
            t = torch.full((y.shape[0],), i, dtype=torch.long)
            eps_c, eps_u = model(x, t, y), model(x, t, null)
            eps = eps_u + guidance_scale * (eps_c - eps_u)
            beta, a_bar = self.betas[i], self.alphas_cumprod[i]
            x = (x - beta / (1 - a_bar).sqrt() * eps) / (1 - beta).sqrt()
            if i > 0:
                x = x + beta.sqrt() * torch.randn_like(x)
        return x


class Trainer:
    def __init__(self, diffusion, lr=1e-3, grad_accum=2):
        self.diffusion, self.grad_accum = diffusion, grad_accum
        self.opt = torch.optim.Adam(diffusion.model.parameters(), lr=lr)
        self.ema = EMA(diffusion.model)

    def train(self, num_steps=5):
        for step in range(num_steps):
            total_loss = 0.0
            for _ in range(self.grad_accum):
                x0, y = torch.randn(8, 4), torch.randint(0, 3, (8,))
                loss = self.diffusion.p_losses(x0, y) / self.grad_accum
                total_loss += loss.item()
                loss.backward()
            nn.utils.clip_grad_norm_(self.diffusion.model.parameters(), 1.0)
            self.opt.step()
            self.opt.zero_grad()
            self.ema.update()
            print(f"step {step} loss {total_loss:.4f}")
        samples = self.diffusion.sample(self.ema.ema_model, torch.arange(3))
        return samples.cpu().numpy()


if __name__ == "__main__":
    torch.manual_seed(0)
    trainer = Trainer(GaussianDiffusion(Denoiser()))
    print(trainer.train().shape)
