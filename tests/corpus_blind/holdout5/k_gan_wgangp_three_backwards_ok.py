# corpus: WGAN-GP toy trainer in the caogang/wgan-gp style: D_real, D_fake and the gradient penalty (autograd.grad with create_graph=True) are backpropagated separately from separate critic forwards on a detached fake batch, then the generator step uses a fresh fake (correct)
# source: https://github.com/caogang/wgan-gp/issues/36
import argparse

import torch
import torch.autograd as autograd
import torch.nn as nn
import torch.optim as optim


class Generator(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.main = nn.Sequential(nn.Linear(2, dim), nn.ReLU(True), nn.Linear(dim, dim), nn.ReLU(True), nn.Linear(dim, 2))

    def forward(self, noise, real_data):
        return self.main(noise)


class Discriminator(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.main = nn.Sequential(nn.Linear(2, dim), nn.ReLU(True), nn.Linear(dim, dim), nn.ReLU(True), nn.Linear(dim, 1))

    def forward(self, inputs):
        return self.main(inputs).view(-1)


def calc_gradient_penalty(netD, real_data, fake_data, lambda_):
    alpha = torch.rand(real_data.size(0), 1).expand(real_data.size())
    interpolates = alpha * real_data + ((1 - alpha) * fake_data)
    interpolates.requires_grad_(True)
    disc_interpolates = netD(interpolates)
    gradients = autograd.grad(
        outputs=disc_interpolates,
        inputs=interpolates,
        grad_outputs=torch.ones(disc_interpolates.size()),
        create_graph=True,
        retain_graph=True,
        only_inputs=True,
    )[0]
    return ((gradients.norm(2, dim=1) - 1) ** 2).mean() * lambda_


def inf_train_gen(batch_size):
    while True:
        centers = torch.tensor([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0]])
        idx = torch.randint(0, 4, (batch_size,))
        yield centers[idx] + 0.02 * torch.randn(batch_size, 2)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dim", type=int, default=16)
    parser.add_argument("--batch_size", type=int, default=16)
    parser.add_argument("--critic_iters", type=int, default=2)
    parser.add_argument("--iters", type=int, default=3)
    parser.add_argument("--lambda_", type=float, default=0.1)
    args = parser.parse_args([])
    torch.manual_seed(0)

    netG = Generator(args.dim)
    netD = Discriminator(args.dim)
    optimizerD = optim.Adam(netD.parameters(), lr=1e-4, betas=(0.5, 0.9))
    optimizerG = optim.Adam(netG.parameters(), lr=1e-4, betas=(0.5, 0.9))
    one = torch.tensor(1.0)
    mone = one * -1
    data = inf_train_gen(args.batch_size)

    for iteration in range(args.iters):
        ############################
        # (1) Update D network
        ###########################
        for p in netD.parameters():
            p.requires_grad = True
        for iter_d in range(args.critic_iters):
            real_data_v = next(data)
            netD.zero_grad()

            D_real = netD(real_data_v).mean()
            D_real.backward(mone)

            noisev = torch.randn(args.batch_size, 2)
            fake = netG(noisev, real_data_v).detach()
            D_fake = netD(fake).mean()
            D_fake.backward(one)

            gradient_penalty = calc_gradient_penalty(netD, real_data_v, fake, args.lambda_)
            gradient_penalty.backward()

            D_cost = D_fake - D_real + gradient_penalty
            Wasserstein_D = D_real - D_fake
            optimizerD.step()

        ############################
        # (2) Update G network
        ###########################
        for p in netD.parameters():
            p.requires_grad = False
        netG.zero_grad()
        noisev = torch.randn(args.batch_size, 2)
        fake = netG(noisev, real_data_v)
        G = netD(fake).mean()
        G.backward(mone)
        G_cost = -G
        optimizerG.step()
        print(iteration, D_cost.item(), G_cost.item(), Wasserstein_D.item())


if __name__ == "__main__":
    main()
