import torch

from .models import Discriminator, Generator


class WGANTrainer:
    def __init__(self, cfg):
        self.cfg = cfg
        self.generator = Generator(cfg.latent_dim, cfg.img_dim)
        self.discriminator = Discriminator(cfg.img_dim)
        self.optimizer_G = torch.optim.RMSprop(self.generator.parameters(), lr=cfg.lr)
        self.optimizer_D = torch.optim.RMSprop(self.discriminator.parameters(), lr=cfg.lr)

    def sample_noise(self, n):
        return torch.randn(n, self.cfg.latent_dim)

    def clip_critic(self):
        for p in self.discriminator.parameters():
            p.data.clamp_(-self.cfg.clip_value, self.cfg.clip_value)

    def train_epoch(self, batches):
        history = []
        data_iter = iter(batches)
        for i in range(len(batches) // self.cfg.n_critic):
            # Train discriminator for n_critic times
            for _ in range(self.cfg.n_critic):
                real_imgs = next(data_iter)
                valid = torch.full((real_imgs.shape[0], 1), -1.0)
                fake = torch.full((real_imgs.shape[0], 1), 1.0)

                self.optimizer_D.zero_grad()
                z = self.sample_noise(real_imgs.shape[0])
                fake_imgs = self.generator(z)

                real_validity = self.discriminator(real_imgs)
                real_validity.backward(valid)
                fake_validity = self.discriminator(fake_imgs)  # expect: GG105
                fake_validity.backward(fake)
                d_loss = (real_validity - fake_validity).mean().item()
                self.optimizer_D.step()
                self.clip_critic()

            # Train generator
            self.optimizer_G.zero_grad()
            z = self.sample_noise(real_imgs.shape[0])
            gen_imgs = self.generator(z)
            gen_validity = self.discriminator(fake_imgs)  # also: GG105
            gen_validity.backward(valid)  # also: GG105
            self.optimizer_G.step()
            history.append({"d_loss": d_loss, "g_loss": gen_validity.mean().item(), "n": gen_imgs.shape[0]})
        return history
