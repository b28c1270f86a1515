# corpus: conditional text-to-image GAN generates one fake batch, trains D on fake.detach(), then reuses the same fake for G's loss through a fresh D forward; G's graph was never backpropagated or stepped before (correct)
# source: https://github.com/aelnouby/Text-to-Image-Synthesis/issues/5
import torch
import torch.nn as nn


class Generator(nn.Module):
    def __init__(self, noise_dim=8, embed_dim=12, proj_dim=6, img_dim=20):
        super().__init__()
        self.projection = nn.Sequential(nn.Linear(embed_dim, proj_dim), nn.LeakyReLU(0.2))
        self.netG = nn.Sequential(nn.Linear(noise_dim + proj_dim, 32), nn.ReLU(), nn.Linear(32, img_dim), nn.Tanh())

    def forward(self, embed, z):
        return self.netG(torch.cat([self.projection(embed), z], dim=1))


class Discriminator(nn.Module):
    def __init__(self, embed_dim=12, proj_dim=6, img_dim=20):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(img_dim, 32), nn.LeakyReLU(0.2))
        self.projector = nn.Linear(embed_dim, proj_dim)
        self.head = nn.Linear(32 + proj_dim, 1)

    def forward(self, img, embed):
        h = torch.cat([self.features(img), self.projector(embed)], dim=1)
        return torch.sigmoid(self.head(h)).squeeze(1), h


class Trainer:
    def __init__(self, noise_dim=8, lr=2e-4, l1_coef=50, l2_coef=100):
        self.noise_dim = noise_dim
        self.generator = Generator(noise_dim)
        self.discriminator = Discriminator()
        self.optimD = torch.optim.Adam(self.discriminator.parameters(), lr=lr, betas=(0.5, 0.999))
        self.optimG = torch.optim.Adam(self.generator.parameters(), lr=lr, betas=(0.5, 0.999))
        self.criterion = nn.BCELoss()
        self.l2_loss = nn.MSELoss()
        self.l1_loss = nn.L1Loss()
        self.l1_coef, self.l2_coef = l1_coef, l2_coef

    def train_batch(self, right_images, right_embed, wrong_images):
        n = right_images.size(0)
        real_labels, fake_labels = torch.ones(n), torch.zeros(n)
        noise = torch.randn(n, self.noise_dim)
        fake_images = self.generator(right_embed, noise)

        # Train the discriminator
        self.discriminator.zero_grad()
        outputs, activation_real = self.discriminator(right_images, right_embed)
        real_loss = self.criterion(outputs, real_labels)
        outputs, _ = self.discriminator(wrong_images, right_embed)
        wrong_loss = self.criterion(outputs, fake_labels)
        outputs, _ = self.discriminator(fake_images.detach(), right_embed)
        fake_loss = self.criterion(outputs, fake_labels)
        d_loss = real_loss + fake_loss + wrong_loss
        d_loss.backward()
        self.optimD.step()

        # Train the generator on the same fake batch
        self.generator.zero_grad()
        outputs, activation_fake = self.discriminator(fake_images, right_embed)
        _, activation_real = self.discriminator(right_images, right_embed)
        activation_fake = torch.mean(activation_fake, 0)
        activation_real = torch.mean(activation_real, 0)
        g_loss = (self.criterion(outputs, real_labels)
                  + self.l2_coef * self.l2_loss(activation_fake, activation_real.detach())
                  + self.l1_coef * self.l1_loss(fake_images, right_images))
        g_loss.backward()
        self.optimG.step()
        return {"d_loss": d_loss.item(), "g_loss": g_loss.item()}


def main():
    torch.manual_seed(0)
    trainer = Trainer()
    for it in range(4):
        right = torch.rand(8, 20) * 2 - 1
        embed = torch.randn(8, 12)
        wrong = right[torch.randperm(8)]
        print(it, trainer.train_batch(right, embed, wrong))


if __name__ == "__main__":
    main()
