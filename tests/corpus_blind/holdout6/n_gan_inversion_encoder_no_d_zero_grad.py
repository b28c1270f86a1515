# corpus: in-domain GAN inversion training loop (encoder E + frozen generator + discriminator D): D is stepped every iteration but optimizer_D.zero_grad() is never called, so D's .grad keeps the previous D losses and the encoder's adversarial-loss gradients
# source: https://github.com/Hsintien-Ng/idinvert_pytorch-reproduced/issues/1
import argparse

import torch
import torch.autograd as autograd
import torch.nn as nn
import torch.nn.functional as F


class StyleGANEncoder(nn.Module):
    def __init__(self, num_layers, w_dim):
        super().__init__()
        self.num_layers, self.w_dim = num_layers, w_dim
        self.net = nn.Sequential(nn.Conv2d(3, 16, 4, 2, 1), nn.LeakyReLU(0.2), nn.Flatten(),
                                 nn.Linear(16 * 8 * 8, num_layers * w_dim))

    def forward(self, x):
        return self.net(x).view(x.shape[0], self.num_layers, self.w_dim)


class StyleGANSynthesis(nn.Module):
    def __init__(self, num_layers, w_dim):
        super().__init__()
        self.fc = nn.Linear(num_layers * w_dim, 3 * 16 * 16)

    def forward(self, w):
        return torch.tanh(self.fc(w.flatten(1))).view(-1, 3, 16, 16)


class StyleGANDiscriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(3, 16, 4, 2, 1), nn.LeakyReLU(0.2), nn.Flatten(), nn.Linear(16 * 8 * 8, 1))

    def forward(self, x):
        return self.net(x)


class PerceptualModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(3, 8, 3, 1, 1), nn.ReLU(), nn.AvgPool2d(2))

    def forward(self, x):
        return self.net(x)


def div_loss_(D, real_x):
    x_ = real_x.requires_grad_(True)
    y_ = D(x_)
    grad = autograd.grad(outputs=y_, inputs=x_, grad_outputs=torch.ones_like(y_),
                         create_graph=True, retain_graph=True, only_inputs=True)[0]
    div = (grad * grad).sum(dim=1, keepdim=True).sum(dim=2, keepdim=True).sum(dim=3, keepdim=True)
    return torch.mean(div)


def GAN_loss(scores_out, real=True):
    if real:
        return torch.mean(F.softplus(-scores_out))
    return torch.mean(F.softplus(scores_out))


def training_loop(cfg):
    G = StyleGANSynthesis(cfg.num_layers, cfg.w_dim)
    E = StyleGANEncoder(cfg.num_layers, cfg.w_dim)
    Fp = PerceptualModel()
    D = StyleGANDiscriminator()
    for p in list(G.parameters()) + list(Fp.parameters()):
        p.requires_grad_(False)
    G.eval()
    Fp.eval()
    E.train()
    D.train()

    optimizer_E = torch.optim.Adam(E.parameters(), lr=cfg.lr_E, betas=(0.9, 0.99))
    optimizer_D = torch.optim.Adam(D.parameters(), lr=cfg.lr_D, betas=(0.9, 0.99))

    for epoch in range(cfg.max_epoch):
        E_loss_rec = D_loss_real = 0.0
        for step in range(cfg.steps_per_epoch):
            x = torch.rand(cfg.batch_size, 3, 16, 16) * 2 - 1
            z = E(x)
            x_rec = G(z)

            # ===============================
            #         optimizing D
            # ===============================
            x_real = D(x)
            x_fake = D(x_rec.detach())
            loss_real = GAN_loss(x_real, real=True)
            loss_fake = GAN_loss(x_fake, real=False)
            loss_gp = div_loss_(D, x)
            D_loss_real += loss_real.item()
            D_loss = cfg.loss_real_weight * loss_real + cfg.loss_fake_weight * loss_fake + cfg.loss_gp_weight * loss_gp
            D_loss.backward()  # expect: GG201
            optimizer_D.step()

            # ===============================
            #         optimizing E
            # ===============================
            loss_pix = torch.mean((x - x_rec) ** 2)
            E_loss_rec += loss_pix.item()
            loss_feat = torch.mean((Fp(x) - Fp(x_rec)) ** 2)
            loss_adv = GAN_loss(D(x_rec), real=True)
            E_loss = cfg.loss_pix_weight * loss_pix + cfg.loss_feat_weight * loss_feat + cfg.loss_adv_weight * loss_adv
            optimizer_E.zero_grad()
            E_loss.backward()
            optimizer_E.step()

        print("epoch %d  E pix %.4f  D real %.4f" % (epoch, E_loss_rec / cfg.steps_per_epoch,
                                                       D_loss_real / cfg.steps_per_epoch))
    return E, D


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--num_layers", type=int, default=4)
    parser.add_argument("--w_dim", type=int, default=8)
    parser.add_argument("--batch_size", type=int, default=4)
    parser.add_argument("--max_epoch", type=int, default=2)
    parser.add_argument("--steps_per_epoch", type=int, default=3)
    parser.add_argument("--lr_E", type=float, default=1e-4)
    parser.add_argument("--lr_D", type=float, default=1e-4)
    parser.add_argument("--loss_pix_weight", type=float, default=1.0)
    parser.add_argument("--loss_feat_weight", type=float, default=5e-5)
    parser.add_argument("--loss_adv_weight", type=float, default=0.1)
    parser.add_argument("--loss_real_weight", type=float, default=1.0)
    parser.add_argument("--loss_fake_weight", type=float, default=1.0)
    parser.add_argument("--loss_gp_weight", type=float, default=5.0)
    cfg = parser.parse_args([])
    torch.manual_seed(0)
    training_loop(cfg)


if __name__ == "__main__":
    main()
