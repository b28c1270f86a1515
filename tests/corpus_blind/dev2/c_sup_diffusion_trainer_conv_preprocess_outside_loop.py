# corpus: 1-D signals are reshaped for a diffusion Trainer with a trainable Conv1d applied once before training, so every train step backprops into that one pre-loop graph
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/lucidrains/denoising-diffusion-pytorch/issues/109
import torch
import torch.nn as nn
import torch.nn.functional as F


class Unet1D(nn.Module):
    def __init__(self, dim=8, channels=4):
        super().__init__()
        self.time_mlp = nn.Sequential(nn.Linear(1, dim), nn.SiLU())
        self.inp = nn.Conv1d(channels, dim, 3, padding=1)
        self.out = nn.Conv1d(dim, channels, 3, padding=1)

    def forward(self, x, t):
        h = self.inp(x) + self.time_mlp(t.float()[:, None] / 100)[:, :, None]
        return self.out(F.silu(h))


class GaussianDiffusion(nn.Module):
    def __init__(self, model, timesteps=100):
        super().__init__()
        self.model = model
        self.num_timesteps = timesteps
        betas = torch.linspace(1e-4, 0.02, timesteps)
        alphas_cumprod = torch.cumprod(1.0 - betas, dim=0)
        self.register_buffer("sqrt_alphas_cumprod", alphas_cumprod.sqrt())
        self.register_buffer("sqrt_one_minus_alphas_cumprod", (1.0 - alphas_cumprod).sqrt())

    def q_sample(self, x_start, t, noise):
        return (self.sqrt_alphas_cumprod[t][:, None, None] * x_start
                + self.sqrt_one_minus_alphas_cumprod[t][:, None, None] * noise)

    def p_losses(self, x_start, t):
        noise = torch.randn_like(x_start)
        x = self.q_sample(x_start, t, noise)
        return F.mse_loss(self.model(x, t), noise)

    def forward(self, img):
        t = torch.randint(0, self.num_timesteps, (img.shape[0],)).long()
        return self.p_losses(img, t)


def cycle(dl):
    while True:
        for data in dl:
            yield data


class Trainer:
    def __init__(self, diffusion_model, dataset, train_batch_size=4, train_lr=1e-3, train_num_steps=6):
        self.model = diffusion_model
        self.batch_size = train_batch_size
        batches = [dataset[i:i + train_batch_size] for i in range(0, len(dataset), train_batch_size)]
        self.dl = cycle(batches)
        self.opt = torch.optim.Adam(diffusion_model.parameters(), lr=train_lr)
        self.train_num_steps = train_num_steps
        self.step = 0

    def train(self):
        while self.step < self.train_num_steps:
            data = next(self.dl)
            loss = self.model(data)
            loss.backward()  # also: GG103
            self.opt.step()
            self.opt.zero_grad()
            print(f"step {self.step}: loss {loss.item():.4f}")
            self.step += 1


def main():
    torch.manual_seed(0)
    raw_signals = torch.randn(8, 1, 32)  # (N, 1, length) recordings
    to_input = nn.Conv1d(1, 4, kernel_size=1)  # convert to the network's channel count
    dataset = to_input(raw_signals)  # expect: GG103
    diffusion = GaussianDiffusion(Unet1D(channels=4))
    trainer = Trainer(diffusion, dataset)
    trainer.train()


if __name__ == "__main__":
    main()
