# corpus: multi-scale text-to-image GAN trainer logs each per-scale discriminator image loss to a plotter with img_loss.cpu().numpy() while the loss still requires grad
# raises: RuntimeError: Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.
# source: https://github.com/ypxie/HDGan/issues/15
from types import SimpleNamespace

import torch
import torch.nn as nn


class plot_scalar(object):
    def __init__(self, name, env=None, rate=1):
        self.name, self.env, self.rate, self.values = name, env, rate, []

    def plot(self, value):
        self.values.append(float(value))


class NetG(nn.Module):
    def __init__(self, emb_dim=6, noise_dim=4):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(emb_dim + noise_dim, 32), nn.ReLU())
        self.heads = nn.ModuleDict({k: nn.Linear(32, s) for k, s in [("output_64", 8), ("output_128", 16)]})

    def forward(self, emb, z):
        h = self.body(torch.cat([emb, z], 1))
        kl_loss = (h.mean(0) ** 2).mean()
        return {k: torch.tanh(head(h)) for k, head in self.heads.items()}, kl_loss


class NetD(nn.Module):
    def __init__(self, emb_dim=6):
        super().__init__()
        self.img = nn.ModuleDict({k: nn.Linear(s, 16) for k, s in [("output_64", 8), ("output_128", 16)]})
        self.pair = nn.Linear(16 + emb_dim, 1)
        self.local = nn.Linear(16, 1)

    def forward(self, images, embeddings, key):
        h = torch.relu(self.img[key](images))
        return {'pair_disc': self.pair(torch.cat([h, embeddings], 1)), 'local_img_disc': self.local(h)}


def compute_d_pair_loss(real_logit, wrong_logit, fake_logit):
    return torch.mean((real_logit - 1) ** 2) + (torch.mean(wrong_logit ** 2) + torch.mean(fake_logit ** 2)) / 2.


def compute_d_img_loss(wrong_img_logit, real_img_logit, fake_logit, prob=0.5):
    real_img_d_loss = torch.mean((wrong_img_logit - 1) ** 2) * prob + torch.mean((real_img_logit - 1) ** 2) * (1 - prob)
    return torch.mean(fake_logit ** 2) + real_img_d_loss


def train_gans(dataset, model_name, netG, netD, args):
    optimizerD = torch.optim.Adam(netD.parameters(), lr=args.d_lr, betas=(0.5, 0.999))
    optimizerG = torch.optim.Adam(netG.parameters(), lr=args.g_lr, betas=(0.5, 0.999))
    d_loss_plot = plot_scalar(name="d_loss", env=model_name)
    g_loss_plot = plot_scalar(name="g_loss", env=model_name)
    d_plot_dict = {k: plot_scalar(name="d_img_loss_" + k, env=model_name) for k in ["output_64", "output_128"]}
    for epoch in range(args.maxepoch):
        for images, wrong_images, embeddings in dataset:
            z = torch.randn(embeddings.size(0), args.noise_dim)
            netD.zero_grad()
            with torch.no_grad():
                fake_images, _ = netG(embeddings, z)
            discriminator_loss = 0
            for key, this_fake in fake_images.items():
                real_dict = netD(images[key], embeddings, key)
                wrong_dict = netD(wrong_images[key], embeddings, key)
                fake_dict = netD(this_fake, embeddings, key)
                discriminator_loss += compute_d_pair_loss(real_dict['pair_disc'], wrong_dict['pair_disc'],
                                                          fake_dict['pair_disc'])
                img_loss = compute_d_img_loss(wrong_dict['local_img_disc'], real_dict['local_img_disc'],
                                              fake_dict['local_img_disc'], prob=0.5)
                discriminator_loss += img_loss
                d_plot_dict[key].plot(img_loss.cpu().numpy().mean())  # expect: GG110
            discriminator_loss.backward()
            optimizerD.step()
            d_loss_plot.plot(discriminator_loss.item())

            netG.zero_grad()
            fake_images, kl_loss = netG(embeddings, z)
            generator_loss = args.KL_COE * kl_loss
            for key, this_fake in fake_images.items():
                fake_dict = netD(this_fake, embeddings, key)
                generator_loss += torch.mean((fake_dict['pair_disc'] - 1) ** 2)
                generator_loss += torch.mean((fake_dict['local_img_disc'] - 1) ** 2)
            generator_loss.backward()
            optimizerG.step()
            g_loss_plot.plot(generator_loss.item())
        print('epoch {} g_loss {:.4f} d_loss {:.4f}'.format(epoch, g_loss_plot.values[-1], d_loss_plot.values[-1]))


def make_dataset(n_batches=2, bs=4):
    sizes = {"output_64": 8, "output_128": 16}
    return [({k: torch.randn(bs, s) for k, s in sizes.items()}, {k: torch.randn(bs, s) for k, s in sizes.items()},
             torch.randn(bs, 6)) for _ in range(n_batches)]


if __name__ == "__main__":
    torch.manual_seed(0)
    args = SimpleNamespace(d_lr=2e-4, g_lr=2e-4, maxepoch=1, noise_dim=4, KL_COE=4.0)
    train_gans(make_dataset(), "HDGAN_toy", NetG(), NetD(), args)
