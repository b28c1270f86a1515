# corpus: model(x, "G") returns (adv_loss, w_rec_loss, stylecode) from one shared generator forward and the train loop calls backward on each weighted loss separately
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/naver-ai/StyleMapGAN/issues/16
from types import SimpleNamespace

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, latent=8, img=16):
        super().__init__()
        self.mapping = nn.Sequential(nn.Linear(latent, 16), nn.LeakyReLU(0.2), nn.Linear(16, 16))
        self.generator = nn.Sequential(nn.Linear(16, 32), nn.LeakyReLU(0.2), nn.Linear(32, img), nn.Tanh())
        self.encoder = nn.Sequential(nn.Linear(img, 32), nn.LeakyReLU(0.2), nn.Linear(32, 16))
        self.discriminator = nn.Sequential(nn.Linear(img, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))
        self.latent = latent

    def forward(self, real_img, mode):
        z = torch.randn(real_img.size(0), self.latent)
        if mode == "G":
            stylecode = self.mapping(z)
            fake_img = self.generator(stylecode)
            fake_pred = self.discriminator(fake_img)
            adv_loss = F.softplus(-fake_pred)
            fake_stylecode = self.encoder(fake_img)
            w_rec_loss = F.mse_loss(stylecode, fake_stylecode, reduction="none").mean(1)
            return adv_loss, w_rec_loss, stylecode
        if mode == "D":
            with torch.no_grad():
                fake_img = self.generator(self.mapping(z))
            real_pred = self.discriminator(real_img)
            fake_pred = self.discriminator(fake_img)
            return F.softplus(-real_pred).mean() + F.softplus(fake_pred).mean()
        raise ValueError(mode)


def requires_grad(module, flag=True):
    for p in module.parameters():
        p.requires_grad = flag


def train(args, loader, model, g_optim, d_optim):
    for idx, real_img in enumerate(loader):
        requires_grad(model.discriminator, True)
        d_loss = model(real_img, "D")
        d_optim.zero_grad()
        d_loss.backward()
        d_optim.step()

        requires_grad(model.discriminator, False)
        adv_loss, w_rec_loss, stylecode = model(real_img, "G")
        adv_loss = adv_loss.mean()
        w_rec_loss = w_rec_loss.mean()
        g_optim.zero_grad()
        (adv_loss * args.lambda_adv_loss).backward()  # expect: GG102
        (w_rec_loss * args.lambda_w_rec_loss).backward()  # also: GG102
        g_optim.step()
        print(f"iter {idx}: d {d_loss.item():.3f} adv {adv_loss.item():.3f} w_rec {w_rec_loss.item():.3f}")


def main():
    torch.manual_seed(0)
    args = SimpleNamespace(lambda_adv_loss=1.0, lambda_w_rec_loss=1.0, lr=2e-3)
    model = Model()
    g_params = list(model.mapping.parameters()) + list(model.generator.parameters()) + list(model.encoder.parameters())
    g_optim = torch.optim.Adam(g_params, lr=args.lr, betas=(0.0, 0.99))
    d_optim = torch.optim.Adam(model.discriminator.parameters(), lr=args.lr, betas=(0.0, 0.99))
    loader = [torch.rand(4, 16) * 2 - 1 for _ in range(3)]
    train(args, loader, model, g_optim, d_optim)


if __name__ == "__main__":
    main()
