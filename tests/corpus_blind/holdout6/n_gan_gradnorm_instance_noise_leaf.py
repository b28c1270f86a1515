# corpus: GN-GAN gradient-normalized discriminator added to an own training loop; normalize_gradient makes the D input a leaf that requires grad and the discriminator then adds instance noise to it in place
# raises: RuntimeError: a leaf Variable that requires grad is being used in an in-place operation.
# source: https://github.com/basiclab/GNGAN-PyTorch/issues/5
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


def normalize_gradient(net_D, x, **kwargs):
    """
                     f
    f_hat = --------------------
            || grad_f || + | f |
    """
    x.requires_grad_(True)
    f = net_D(x, **kwargs)
    grad = torch.autograd.grad(f, [x], torch.ones_like(f), create_graph=True, retain_graph=True)[0]
    grad_norm = torch.norm(torch.flatten(grad, start_dim=1), p=2, dim=1)
    grad_norm = grad_norm.view(-1, *[1 for _ in range(len(f.shape) - 1)])
    return f / (grad_norm + torch.abs(f))


class Generator(nn.Module):
    def __init__(self, z_dim, ch=16):
        super().__init__()
        self.ch = ch
        self.linear = nn.Linear(z_dim, 4 * 4 * ch)
        self.main = nn.Sequential(
            nn.BatchNorm2d(ch), nn.ReLU(True),
            nn.ConvTranspose2d(ch, ch // 2, 4, 2, 1),
            nn.BatchNorm2d(ch // 2), nn.ReLU(True),
            nn.Conv2d(ch // 2, 3, 3, 1, 1), nn.Tanh(),
        )

    def forward(self, z):
        return self.main(self.linear(z).view(-1, self.ch, 4, 4))


class Discriminator(nn.Module):
    def __init__(self, ch=16, noise_std=0.1):
        super().__init__()
        self.noise_std = noise_std
        self.main = nn.Sequential(
            nn.Conv2d(3, ch, 3, 1, 1), nn.LeakyReLU(0.1),
            nn.Conv2d(ch, ch, 4, 2, 1), nn.LeakyReLU(0.1),
        )
        self.linear = nn.Linear(4 * 4 * ch, 1)

    def forward(self, x):
        if self.training and self.noise_std > 0:
            # instance noise on the discriminator input
            x += self.noise_std * torch.randn_like(x)  # expect: GG108
        return self.linear(torch.flatten(self.main(x), start_dim=1))


class HingeLoss(nn.Module):
    def forward(self, pred_real, pred_fake=None):
        if pred_fake is not None:
            loss_real = F.relu(1 - pred_real).mean()
            loss_fake = F.relu(1 + pred_fake).mean()
            return loss_real + loss_fake, loss_real, loss_fake
        return -pred_real.mean()


def train(args):
    net_G = Generator(args.z_dim)
    net_D = Discriminator()
    loss_fn = HingeLoss()
    optim_G = torch.optim.Adam(net_G.parameters(), lr=args.lr_G, betas=(0.0, 0.9))
    optim_D = torch.optim.Adam(net_D.parameters(), lr=args.lr_D, betas=(0.0, 0.9))

    for step in range(1, args.total_steps + 1):
        loss_sum = 0.0
        for _ in range(args.n_dis):
            optim_D.zero_grad()
            x_real = torch.rand(args.batch_size, 3, 8, 8) * 2 - 1
            with torch.no_grad():
                z_ = torch.randn(args.batch_size, args.z_dim)
                x_fake = net_G(z_).detach()
            x_real_fake = torch.cat([x_real, x_fake], dim=0)
            pred = normalize_gradient(net_D, x_real_fake)
            pred_real, pred_fake = torch.split(pred, [x_real.shape[0], x_fake.shape[0]])
            loss, loss_real, loss_fake = loss_fn(pred_real, pred_fake)
            loss.backward()
            optim_D.step()
            loss_sum += loss.item()

        for p in net_D.parameters():
            p.requires_grad_(False)
        optim_G.zero_grad()
        z_ = torch.randn(args.batch_size * 2, args.z_dim)
        fake = net_G(z_)
        pred_fake = normalize_gradient(net_D, fake)
        loss = loss_fn(pred_fake)
        loss.backward()
        optim_G.step()
        for p in net_D.parameters():
            p.requires_grad_(True)
        print("step %d  loss_D %.3f  loss_G %.3f" % (step, loss_sum / args.n_dis, loss.item()))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--z_dim", type=int, default=16)
    parser.add_argument("--batch_size", type=int, default=4)
    parser.add_argument("--n_dis", type=int, default=2)
    parser.add_argument("--lr_G", type=float, default=2e-4)
    parser.add_argument("--lr_D", type=float, default=2e-4)
    parser.add_argument("--total_steps", type=int, default=2)
    args = parser.parse_args([])
    torch.manual_seed(0)
    train(args)


if __name__ == "__main__":
    main()
