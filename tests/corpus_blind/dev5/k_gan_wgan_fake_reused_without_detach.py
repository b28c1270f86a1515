# corpus: WGAN (weight clipping) trainer: the critic step feeds generator(z) to the discriminator without .detach(), and the generator step reuses the same fake_imgs, so its backward runs into G's freed graph
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/eriklindernoren/PyTorch-GAN/issues/151
import argparse

import numpy as np
import torch
import torch.nn as nn


def get_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n_epochs", type=int, default=1)
    parser.add_argument("--batch_size", type=int, default=8)
    parser.add_argument("--lr", type=float, default=0.00005)
    parser.add_argument("--latent_dim", type=int, default=16)
    parser.add_argument("--img_size", type=int, default=8)
    parser.add_argument("--channels", type=int, default=1)
    parser.add_argument("--n_critic", type=int, default=5)
    parser.add_argument("--clip_value", type=float, default=0.01)
    return parser.parse_args([])


class Generator(nn.Module):
    def __init__(self, opt):
        super().__init__()
        self.img_shape = (opt.channels, opt.img_size, opt.img_size)

        def block(in_feat, out_feat, normalize=True):
            layers = [nn.Linear(in_feat, out_feat)]
            if normalize:
                layers.append(nn.BatchNorm1d(out_feat, 0.8))
            layers.append(nn.LeakyReLU(0.2, inplace=True))
            return layers

        self.model = nn.Sequential(
            *block(opt.latent_dim, 32, normalize=False),
            *block(32, 64),
            nn.Linear(64, int(np.prod(self.img_shape))),
            nn.Tanh(),
        )

    def forward(self, z):
        img = self.model(z)
        return img.view(img.shape[0], *self.img_shape)


class Discriminator(nn.Module):
    def __init__(self, opt):
        super().__init__()
        img_shape = (opt.channels, opt.img_size, opt.img_size)
        self.model = nn.Sequential(
            nn.Linear(int(np.prod(img_shape)), 32),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Linear(32, 16),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Linear(16, 1),
        )

    def forward(self, img):
        return self.model(img.view(img.shape[0], -1))


def fake_dataloader(opt, n_batches=3):
    for _ in range(n_batches):
        imgs = torch.rand(opt.batch_size, opt.channels, opt.img_size, opt.img_size) * 2 - 1
        yield imgs, torch.zeros(opt.batch_size)


def train(opt):
    generator = Generator(opt)
    discriminator = Discriminator(opt)
    optimizer_G = torch.optim.RMSprop(generator.parameters(), lr=opt.lr)
    optimizer_D = torch.optim.RMSprop(discriminator.parameters(), lr=opt.lr)

    batches_done = 0
    for epoch in range(opt.n_epochs):
        for i, (imgs, _) in enumerate(fake_dataloader(opt)):
            real_imgs = imgs

            # ---------------------
            #  Train Discriminator
            # ---------------------
            optimizer_D.zero_grad()
            z = torch.randn(imgs.shape[0], opt.latent_dim)
            # "why detach fake_imgs but not real_imgs?" -> detach dropped, and fake_imgs reused below
            fake_imgs = generator(z)
            loss_D = -torch.mean(discriminator(real_imgs)) + torch.mean(discriminator(fake_imgs))  # expect: GG105
            loss_D.backward()
            optimizer_D.step()

            for p in discriminator.parameters():
                p.data.clamp_(-opt.clip_value, opt.clip_value)

            # Train the generator every n_critic iterations
            if i % opt.n_critic == 0:
                optimizer_G.zero_grad()
                # reuse the batch generated above instead of sampling again
                loss_G = -torch.mean(discriminator(fake_imgs))
                loss_G.backward()  # also: GG105
                optimizer_G.step()
                print(
                    "[Epoch %d/%d] [Batch %d] [D loss: %f] [G loss: %f]"
                    % (epoch, opt.n_epochs, i, loss_D.item(), loss_G.item())
                )
            batches_done += 1


def main():
    torch.manual_seed(0)
    train(get_args())


if __name__ == "__main__":
    main()
