# corpus: lightweight-gan style Trainer: D and G gradients accumulated over micro-batches on purpose (zero_grad once per step) and total losses summed as .item() floats
# source: https://github.com/lucidrains/lightweight-gan/pull/4
import torch
import torch.nn as nn
import torch.nn.functional as F


class LightweightGAN(nn.Module):
    def __init__(self, latent_dim=6, image_dim=12):
        super().__init__()
        self.latent_dim = latent_dim
        self.G = nn.Sequential(nn.Linear(latent_dim, 24), nn.GELU(), nn.Linear(24, image_dim), nn.Tanh())
        self.D = nn.Sequential(nn.Linear(image_dim, 24), nn.LeakyReLU(0.1), nn.Linear(24, 1))
        self.G_opt = torch.optim.Adam(self.G.parameters(), lr=2e-4, betas=(0.5, 0.9))
        self.D_opt = torch.optim.Adam(self.D.parameters(), lr=2e-4, betas=(0.5, 0.9))


class Trainer:
    def __init__(self, batch_size=4, gradient_accumulate_every=3):
        self.GAN = LightweightGAN()
        self.batch_size = batch_size
        self.gradient_accumulate_every = gradient_accumulate_every
        self.d_loss = 0.0
        self.g_loss = 0.0
        self.steps = 0

    def loader(self):
        return torch.rand(self.batch_size, 12) * 2 - 1

    def train(self):
        G, D = self.GAN.G, self.GAN.D
        total_disc_loss = torch.zeros([])
        total_gen_loss = torch.zeros([])

        # train discriminator
        self.GAN.D_opt.zero_grad()
        for i in range(self.gradient_accumulate_every):
            latents = torch.randn(self.batch_size, self.GAN.latent_dim)
            image_batch = self.loader()
            generated_images = G(latents)
            fake_output = D(generated_images.detach())
            real_output = D(image_batch)
            divergence = (F.relu(1 + real_output) + F.relu(1 - fake_output)).mean()
            disc_loss = divergence / self.gradient_accumulate_every
            disc_loss.backward()
            total_disc_loss += divergence.detach().item() / self.gradient_accumulate_every
        self.d_loss = float(total_disc_loss)
        self.GAN.D_opt.step()

        # train generator
        self.GAN.G_opt.zero_grad()
        for i in range(self.gradient_accumulate_every):
            latents = torch.randn(self.batch_size, self.GAN.latent_dim)
            generated_images = G(latents)
            fake_output = D(generated_images)
            loss = fake_output.mean()
            gen_loss = loss / self.gradient_accumulate_every
            gen_loss.backward()
            total_gen_loss += loss.detach().item() / self.gradient_accumulate_every
        self.g_loss = float(total_gen_loss)
        self.GAN.G_opt.step()
        self.steps += 1
        return total_disc_loss, total_gen_loss


if __name__ == "__main__":
    torch.manual_seed(0)
    trainer = Trainer()
    for _ in range(3):
        total_disc_loss, total_gen_loss = trainer.train()
    assert total_disc_loss.grad_fn is None and total_gen_loss.grad_fn is None
    assert isinstance(trainer.d_loss, float) and isinstance(trainer.g_loss, float)
    assert all(p.grad is not None for p in trainer.GAN.G.parameters())
    assert all(p.grad is not None for p in trainer.GAN.D.parameters())
