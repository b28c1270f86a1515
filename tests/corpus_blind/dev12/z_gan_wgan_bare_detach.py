# corpus: WGAN-GP loop that means to stop critic gradients at the generator with a bare fake_imgs.detach() statement whose result is thrown away; both optimizers are zeroed once at the top of the iteration, so the critic loss and its gradient penalty backpropagate into the generator and optimizer_G.step() applies the critic's gradient mixed with the generator loss (silent: the generator is pushed to help the critic)
# source: https://github.com/eriklindernoren/PyTorch-GAN/issues/136
import argparse
import random

import numpy as np
import torch
import torch.autograd as autograd
import torch.nn as nn

torch.manual_seed(0)
random.seed(0)
np.random.seed(0)

opt = argparse.Namespace(n_epochs=1, batch_size=8, lr=2e-4, b1=0.5, b2=0.999,
                         latent_dim=8, img_size=8, channels=1, n_critic=1)
img_shape = (opt.channels, opt.img_size, opt.img_size)
lambda_gp = 10


class Generator(nn.Module):
    def __init__(self):
        super(Generator, self).__init__()

        def block(in_feat, out_feat, normalize=True):
            layers = [nn.Linear(in_feat, out_feat)]
            if normalize:
                layers.append(nn.BatchNorm1d(out_feat, 0.8))
            layers.append(nn.LeakyReLU(0.2, inplace=True))
            return layers

        self.model = nn.Sequential(
            *block(opt.latent_dim, 32, normalize=False),
            *block(32, 64),
            nn.Linear(64, int(np.prod(img_shape))),
            nn.Tanh()
        )

    def forward(self, z):
        img = self.model(z)
        return img.view(img.shape[0], *img_shape)


class Discriminator(nn.Module):
    def __init__(self):
        super(Discriminator, self).__init__()
        self.model = nn.Sequential(
            nn.Linear(int(np.prod(img_shape)), 64),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Linear(64, 32),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Linear(32, 1),
        )

    def forward(self, img):
        return self.model(img.view(img.shape[0], -1))


def compute_gradient_penalty(D, real_samples, fake_samples):
    alpha = torch.rand(real_samples.size(0), 1, 1, 1)
    interpolates = (alpha * real_samples + ((1 - alpha) * fake_samples)).requires_grad_(True)
    d_interpolates = D(interpolates)
    fake = torch.ones(real_samples.shape[0], 1)
    gradients = autograd.grad(outputs=d_interpolates, inputs=interpolates, grad_outputs=fake,
                              create_graph=True, retain_graph=True, only_inputs=True)[0]
    gradients = gradients.view(gradients.size(0), -1)
    return ((gradients.norm(2, dim=1) - 1) ** 2).mean()


def make_dataloader(n_batches=3):
    return [(torch.rand(opt.batch_size, *img_shape) * 2 - 1, torch.zeros(opt.batch_size))
            for _ in range(n_batches)]


def main():
    generator = Generator()
    discriminator = Discriminator()
    optimizer_G = torch.optim.Adam(generator.parameters(), lr=opt.lr, betas=(opt.b1, opt.b2))
    optimizer_D = torch.optim.Adam(discriminator.parameters(), lr=opt.lr, betas=(opt.b1, opt.b2))
    dataloader = make_dataloader()

    batches_done = 0
    for epoch in range(opt.n_epochs):
        for i, (imgs, _) in enumerate(dataloader):
            real_imgs = imgs

            # ---------------------
            #  Train Discriminator
            # ---------------------
            optimizer_D.zero_grad()
            optimizer_G.zero_grad()
            z = torch.randn(imgs.shape[0], opt.latent_dim)
            fake_imgs = generator(z)
            fake_imgs.detach()  # expect: GG112

            real_validity = discriminator(real_imgs)
            fake_validity = discriminator(fake_imgs)
            gradient_penalty = compute_gradient_penalty(discriminator, real_imgs, fake_imgs)
            d_loss = -torch.mean(real_validity) + torch.mean(fake_validity) + lambda_gp * gradient_penalty
            d_loss.backward()
            optimizer_D.step()
            leaked = sum(p.grad.norm().item() for p in generator.parameters() if p.grad is not None)

            # -----------------
            #  Train Generator
            # -----------------
            if i % opt.n_critic == 0:
                z = torch.randn(imgs.shape[0], opt.latent_dim)
                fake_imgs = generator(z)
                fake_validity = discriminator(fake_imgs)
                g_loss = -torch.mean(fake_validity)
                g_loss.backward()
                optimizer_G.step()  # also: GG112

                print("[Epoch %d/%d] [Batch %d/%d] [D loss: %f] [G loss: %f] [critic grad left in G: %f]"
                      % (epoch, opt.n_epochs, i, len(dataloader), d_loss.item(), g_loss.item(), leaked))
                batches_done += opt.n_critic


if __name__ == "__main__":
    main()
