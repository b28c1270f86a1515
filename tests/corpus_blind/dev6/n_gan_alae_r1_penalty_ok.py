# corpus: ALAE training step: reals get requires_grad for the R1 penalty computed with autograd.grad(create_graph=True); D, G and latent-autoencoder losses each use a fresh forward pass and their own zero_grad/backward/step (correct)
# source: https://github.com/podgorskiy/ALAE/issues/55
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


def discriminator_logistic_simple_gp(d_result_fake, d_result_real, reals, r1_gamma=10.0):
    loss = F.softplus(d_result_fake) + F.softplus(-d_result_real)
    if r1_gamma != 0.0:
        real_loss = d_result_real.sum()
        real_grads = torch.autograd.grad(real_loss, reals, create_graph=True, retain_graph=True)[0]
        r1_penalty = torch.sum(real_grads.pow(2.0), dim=[1, 2, 3])
        loss = loss + r1_penalty * (r1_gamma * 0.5)
    return loss.mean()


def generator_logistic_non_saturating(d_result_fake):
    return F.softplus(-d_result_fake).mean()


class Model(nn.Module):
    def __init__(self, latent_size=16, img=8):
        super().__init__()
        self.latent_size = latent_size
        self.img = img
        self.mapping_f = nn.Sequential(nn.Linear(latent_size, latent_size), nn.LeakyReLU(0.2))
        self.decoder = nn.Sequential(nn.Linear(latent_size, 3 * img * img), nn.Tanh())
        self.encoder = nn.Sequential(nn.Flatten(), nn.Linear(3 * img * img, latent_size), nn.LeakyReLU(0.2))
        self.mapping_d = nn.Linear(latent_size, 1)

    def generate(self, z=None, count=4):
        if z is None:
            z = torch.randn(count, self.latent_size)
        styles = self.mapping_f(z)
        return self.decoder(styles).view(-1, 3, self.img, self.img), styles

    def encode(self, x):
        w = self.encoder(x)
        return w, self.mapping_d(w)

    def forward(self, x, d_train, ae):
        if ae:
            self.encoder.requires_grad_(True)
            z = torch.randn(x.shape[0], self.latent_size)
            rec, s = self.generate(z=z)
            w, _ = self.encode(rec)
            return torch.mean((s - w) ** 2)
        elif d_train:
            with torch.no_grad():
                Xp, _ = self.generate(count=x.shape[0])
            self.encoder.requires_grad_(True)
            _, d_result_real = self.encode(x)
            _, d_result_fake = self.encode(Xp.detach())
            return discriminator_logistic_simple_gp(d_result_fake, d_result_real, x)
        else:
            with torch.no_grad():
                z = torch.randn(x.shape[0], self.latent_size)
            self.encoder.requires_grad_(False)
            rec, _ = self.generate(z=z)
            _, d_result_fake = self.encode(rec)
            return generator_logistic_non_saturating(d_result_fake)


def train(cfg):
    model = Model(cfg.latent_size)
    d_head_init = model.mapping_d.weight.detach().clone()
    decoder_optimizer = torch.optim.Adam(list(model.decoder.parameters()) + list(model.mapping_f.parameters()),
                                         lr=cfg.lr, betas=(0.0, 0.99))
    encoder_optimizer = torch.optim.Adam(list(model.encoder.parameters()) + list(model.mapping_d.parameters()),
                                         lr=cfg.lr, betas=(0.0, 0.99))
    tracker = {"loss_d": [], "loss_g": [], "lae": []}
    for epoch in range(cfg.epochs):
        for i in range(cfg.iters):
            x = torch.rand(cfg.batch_size, 3, 8, 8) * 2 - 1
            x.requires_grad = True

            encoder_optimizer.zero_grad()
            loss_d = model(x, d_train=True, ae=False)
            tracker["loss_d"].append(loss_d.item())
            loss_d.backward()
            encoder_optimizer.step()

            decoder_optimizer.zero_grad()
            loss_g = model(x, d_train=False, ae=False)
            tracker["loss_g"].append(loss_g.item())
            loss_g.backward()
            decoder_optimizer.step()

            encoder_optimizer.zero_grad()
            decoder_optimizer.zero_grad()
            lae = model(x, d_train=True, ae=True)
            tracker["lae"].append(lae.item())
            lae.backward()
            encoder_optimizer.step()
            decoder_optimizer.step()
        print("epoch %d  %s" % (epoch, {k: round(sum(v) / len(v), 4) for k, v in tracker.items()}))
    print("discriminator head moved:", (model.mapping_d.weight - d_head_init).abs().sum().item() > 0)
    return model


def main():
    parser = argparse.ArgumentParser(description="Adversarial, hierarchical style VAE")
    parser.add_argument("--latent_size", type=int, default=16)
    parser.add_argument("--batch_size", type=int, default=4)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--iters", type=int, default=2)
    parser.add_argument("--lr", type=float, default=2e-3)
    cfg = parser.parse_args([])
    torch.manual_seed(0)
    train(cfg)


if __name__ == "__main__":
    main()
