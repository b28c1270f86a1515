# corpus: swapping-autoencoder training loop: in the D step the encoder and generator are frozen with requires_grad(..., False) so their fakes carry no graph, D and the co-occurrence critic are stepped (with a lazy R1 penalty via create_graph=True), and the G step runs the encoder/generator forward a second time before its own backward; correct
# source: https://github.com/rosinality/swapping-autoencoder-pytorch/issues/12
from types import SimpleNamespace

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import autograd


def requires_grad(model, flag=True):
    for p in model.parameters():
        p.requires_grad = flag


def d_logistic_loss(real_pred, fake_pred):
    return F.softplus(-real_pred).mean() + F.softplus(fake_pred).mean()


def g_nonsaturating_loss(fake_pred):
    return F.softplus(-fake_pred).mean()


def d_r1_loss(real_pred, real_img):
    grad_real, = autograd.grad(outputs=real_pred.sum(), inputs=real_img, create_graph=True)
    return grad_real.pow(2).reshape(grad_real.shape[0], -1).sum(1).mean()


def patchify_image(img, n_crop, size=4):
    batch, channel, height, width = img.shape
    patches = []
    for _ in range(n_crop):
        y, x = torch.randint(0, height - size + 1, (1,)).item(), torch.randint(0, width - size + 1, (1,)).item()
        patches.append(img[:, :, y:y + size, x:x + size])
    return torch.cat(patches, 0)


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.LeakyReLU(0.2))
        self.structure = nn.Conv2d(8, 4, 1)
        self.texture = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 8))

    def forward(self, x):
        h = self.body(x)
        return self.structure(h), self.texture(h)


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.mod = nn.Linear(8, 4)
        self.out = nn.Conv2d(4, 3, 3, padding=1)

    def forward(self, structure, texture):
        return torch.tanh(self.out(structure * self.mod(texture)[:, :, None, None]))


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(3, 8, 3, stride=2, padding=1), nn.LeakyReLU(0.2), nn.Flatten(), nn.LazyLinear(1))

    def forward(self, x):
        return self.net(x)


class CooccurDiscriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.LeakyReLU(0.2), nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.head = nn.Linear(16, 1)

    def forward(self, patch, reference=None, ref_input=None):
        feat = self.enc(patch)
        if ref_input is None:
            ref_input = self.enc(reference).mean(0, keepdim=True)
        return self.head(torch.cat([feat, ref_input.expand(feat.shape[0], -1)], 1)), ref_input


def train(args, encoder, generator, discriminator, cooccur, g_optim, d_optim):
    for i in range(args.iter):
        real_img = torch.rand(args.batch, 3, 8, 8) * 2 - 1
        requires_grad(encoder, False)
        requires_grad(generator, False)
        requires_grad(discriminator, True)
        requires_grad(cooccur, True)
        real_img1, real_img2 = real_img.chunk(2, dim=0)
        structure1, texture1 = encoder(real_img1)
        _, texture2 = encoder(real_img2)
        fake_img1 = generator(structure1, texture1)
        fake_img2 = generator(structure1, texture2)
        fake_pred = discriminator(torch.cat((fake_img1, fake_img2), 0))
        real_pred = discriminator(real_img)
        d_loss = d_logistic_loss(real_pred, fake_pred)
        fake_patch_pred, ref_input = cooccur(patchify_image(fake_img2, args.n_crop), patchify_image(real_img2, args.n_crop))
        real_patch_pred, _ = cooccur(patchify_image(real_img2, args.n_crop), ref_input=ref_input)
        cooccur_loss = d_logistic_loss(real_patch_pred, fake_patch_pred)
        d_optim.zero_grad()
        (d_loss + cooccur_loss).backward()
        d_optim.step()

        if i % args.d_reg_every == 0:
            real_img.requires_grad = True
            real_pred = discriminator(real_img)
            r1_loss = d_r1_loss(real_pred, real_img)
            d_optim.zero_grad()
            (args.r1 / 2 * r1_loss * args.d_reg_every + 0 * real_pred[0]).sum().backward()
            d_optim.step()

        requires_grad(encoder, True)
        requires_grad(generator, True)
        requires_grad(discriminator, False)
        requires_grad(cooccur, False)
        real_img.requires_grad = False
        structure1, texture1 = encoder(real_img1)
        _, texture2 = encoder(real_img2)
        fake_img1 = generator(structure1, texture1)
        fake_img2 = generator(structure1, texture2)
        recon_loss = F.l1_loss(fake_img1, real_img1)
        g_loss = g_nonsaturating_loss(discriminator(torch.cat((fake_img1, fake_img2), 0)))
        fake_patch_pred, _ = cooccur(patchify_image(fake_img2, args.n_crop), patchify_image(real_img2, args.n_crop))
        g_cooccur_loss = g_nonsaturating_loss(fake_patch_pred)
        g_optim.zero_grad()
        (recon_loss + g_loss + g_cooccur_loss).backward()
        g_optim.step()
        print(f"{i}: d {d_loss.item():.4f} c {cooccur_loss.item():.4f} g {g_loss.item():.4f} rec {recon_loss.item():.4f}")


def main():
    torch.manual_seed(0)
    args = SimpleNamespace(iter=3, batch=8, n_crop=2, d_reg_every=2, r1=10.0)
    encoder, generator, discriminator, cooccur = Encoder(), Generator(), Discriminator(), CooccurDiscriminator()
    discriminator(torch.zeros(1, 3, 8, 8))
    g_optim = torch.optim.Adam(list(encoder.parameters()) + list(generator.parameters()), lr=2e-3, betas=(0.0, 0.99))
    d_optim = torch.optim.Adam(list(discriminator.parameters()) + list(cooccur.parameters()), lr=2e-3, betas=(0.0, 0.99))
    train(args, encoder, generator, discriminator, cooccur, g_optim, d_optim)


if __name__ == "__main__":
    main()
