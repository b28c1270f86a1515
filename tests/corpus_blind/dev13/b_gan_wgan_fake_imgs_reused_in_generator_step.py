# corpus: WGAN trainer (PyTorch-GAN wgan.py shape): the critic steps backpropagate fake_validity through fake_imgs = generator(z) without detach, and the generator step then feeds that same fake_imgs (instead of the fresh gen_imgs) to the critic, backpropagating into the generator graph the critic step already freed
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/eriklindernoren/PyTorch-GAN/issues/6
import argparse

import numpy as np
import torch
import torch.nn as nn


def parse_opt(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--n_epochs", type=int, default=2)
    parser.add_argument("--batch_size", type=int, default=16)
    parser.add_argument("--lr", type=float, default=0.00005)
    parser.add_argument("--latent_dim", type=int, default=8)
    parser.add_argument("--img_size", type=int, default=8)
    parser.add_argument("--channels", type=int, default=1)
    parser.add_argument("--n_critic", type=int, default=3)
    parser.add_argument("--clip_value", type=float, default=0.01)
    parser.add_argument("--sample_interval", type=int, default=4)
    return parser.parse_args(argv)


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
            nn.Linear(int(np.prod(img_shape)), 64),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Linear(64, 32),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Linear(32, 1),
        )

    def forward(self, img):
        return self.model(img.view(img.shape[0], -1))


def make_dataloader(opt, n_batches=12):
    data = torch.rand(n_batches * opt.batch_size, opt.channels, opt.img_size, opt.img_size) * 2 - 1
    labels = torch.zeros(data.shape[0], dtype=torch.long)
    dataset = torch.utils.data.TensorDataset(data, labels)
    return torch.utils.data.DataLoader(dataset, batch_size=opt.batch_size, shuffle=True)


def train(opt):
    generator = Generator(opt)
    discriminator = Discriminator(opt)
    dataloader = make_dataloader(opt)
    optimizer_G = torch.optim.RMSprop(generator.parameters(), lr=opt.lr)
    optimizer_D = torch.optim.RMSprop(discriminator.parameters(), lr=opt.lr)
    batches_done = 0
    for epoch in range(opt.n_epochs):
        data_iter = iter(dataloader)
        for i in range(len(dataloader) // opt.n_critic):
            # Train discriminator for n_critic times
            for _ in range(opt.n_critic):
                imgs, _ = next(data_iter)
                valid = torch.full((imgs.shape[0], 1), -1.0)
                fake = torch.full((imgs.shape[0], 1), 1.0)
                real_imgs = imgs.float()

                optimizer_D.zero_grad()
                z = torch.randn(imgs.shape[0], opt.latent_dim)
                fake_imgs = generator(z)

                real_validity = discriminator(real_imgs)
                real_validity.backward(valid)
                fake_validity = discriminator(fake_imgs)  # expect: GG105
                fake_validity.backward(fake)
                d_loss = real_validity - fake_validity
                optimizer_D.step()

                # Clip weights of discriminator
                for p in discriminator.parameters():
                    p.data.clamp_(-opt.clip_value, opt.clip_value)

            # Train Generator
            optimizer_G.zero_grad()
            z = torch.randn(imgs.shape[0], opt.latent_dim)
            gen_imgs = generator(z)
            gen_validity = discriminator(fake_imgs)  # also: GG105
            gen_validity.backward(valid)  # also: GG105
            optimizer_G.step()

            print("[Epoch %d/%d] [Batch %d] [D loss: %f] [G loss: %f]" % (
                epoch, opt.n_epochs, batches_done, d_loss.mean().item(), gen_validity.mean().item()))
            if batches_done % opt.sample_interval == 0:
                print("sample grid mean", gen_imgs.detach()[:4].mean().item())
            batches_done += 1


def main():
    torch.manual_seed(0)
    np.random.seed(0)
    opt = parse_opt([])
    train(opt)


if __name__ == "__main__":
    main()
