# corpus: DDPM trainer with an EMA copy of the denoiser (requires_grad off) updated through .data after each optimizer step, gradient accumulation that clears grads only after each conditional step, and a no_grad sampler using the EMA model (correct)
# source: https://github.com/acids-ircam/diffusion_models/issues/10
import argparse
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F


class EMA:
    def __init__(self, beta):
        self.beta = beta
        self.step = 0

    def update_model_average(self, ma_model, current_model):
        for current_params, ma_params in zip(current_model.parameters(), ma_model.parameters()):
            ma_params.data = self.update_average(ma_params.data, current_params.data)

    def update_average(self, old, new):
        if old is None:
            return new
        return old * self.beta + (1 - self.beta) * new

    def step_ema(self, ema_model, model, step_start_ema=2):
        if self.step < step_start_ema:
            ema_model.load_state_dict(model.state_dict())
        else:
            self.update_model_average(ema_model, model)
        self.step += 1


class Denoiser(nn.Module):
    def __init__(self, dim=16, hidden=64):
        super().__init__()
        self.time_embed = nn.Linear(1, hidden)
        self.inp = nn.Linear(dim, hidden)
        self.out = nn.Sequential(nn.SiLU(), nn.Linear(hidden, dim))

    def forward(self, x, t):
        return self.out(self.inp(x) + self.time_embed(t[:, None].float()))


class Diffusion:
    def __init__(self, noise_steps=50, beta_start=1e-4, beta_end=0.02):
        self.noise_steps = noise_steps
        self.beta = torch.linspace(beta_start, beta_end, noise_steps)
        self.alpha = 1.0 - self.beta
        self.alpha_hat = torch.cumprod(self.alpha, dim=0)

    def noise_images(self, x, t):
        sqrt_alpha_hat = torch.sqrt(self.alpha_hat[t])[:, None]
        sqrt_one_minus_alpha_hat = torch.sqrt(1 - self.alpha_hat[t])[:, None]
        eps = torch.randn_like(x)
        return sqrt_alpha_hat * x + sqrt_one_minus_alpha_hat * eps, eps

    def sample_timesteps(self, n):
        return torch.randint(low=1, high=self.noise_steps, size=(n,))

    @torch.no_grad()
    def sample(self, model, n, dim):
        model.eval()
        x = torch.randn(n, dim)
        for i in reversed(range(1, self.noise_steps)):
            t = torch.full((n,), i, dtype=torch.long)
            predicted_noise = model(x, t / self.noise_steps)
            alpha, alpha_hat, beta = self.alpha[t][:, None], self.alpha_hat[t][:, None], self.beta[t][:, None]
            noise = torch.randn_like(x) if i > 1 else torch.zeros_like(x)
            x = 1 / torch.sqrt(alpha) * (x - ((1 - alpha) / torch.sqrt(1 - alpha_hat)) * predicted_noise) + torch.sqrt(beta) * noise
        model.train()
        return x


class Trainer:
    def __init__(self, args):
        self.args = args
        self.model = Denoiser(args.dim)
        self.ema = EMA(0.995)
        self.ema_model = copy.deepcopy(self.model).eval().requires_grad_(False)
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=args.lr)
        self.diffusion = Diffusion(noise_steps=args.noise_steps)

    def compute_loss(self, images):
        t = self.diffusion.sample_timesteps(images.shape[0])
        x_t, noise = self.diffusion.noise_images(images, t)
        predicted_noise = self.model(x_t, t / self.diffusion.noise_steps)
        return F.mse_loss(noise, predicted_noise)

    def train_epoch(self, loader):
        running = 0.0
        self.optimizer.zero_grad()
        for i, images in enumerate(loader):
            loss = self.compute_loss(images) / self.args.accum_steps
            loss.backward()
            running += loss.item() * self.args.accum_steps
            if (i + 1) % self.args.accum_steps == 0:
                self.optimizer.step()
                self.optimizer.zero_grad()
                self.ema.step_ema(self.ema_model, self.model)
        return running / len(loader)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dim", type=int, default=16)
    parser.add_argument("--lr", type=float, default=3e-4)
    parser.add_argument("--noise_steps", type=int, default=50)
    parser.add_argument("--accum_steps", type=int, default=2)
    parser.add_argument("--epochs", type=int, default=3)
    args = parser.parse_args([])
    torch.manual_seed(0)
    trainer = Trainer(args)
    loader = [torch.randn(8, args.dim) for _ in range(4)]
    for epoch in range(args.epochs):
        print(f"epoch {epoch} mse {trainer.train_epoch(loader):.4f}")
    samples = trainer.diffusion.sample(trainer.ema_model, n=4, dim=args.dim)
    print("samples", tuple(samples.shape))


if __name__ == "__main__":
    main()
