# corpus: WGAN-GP calc_gradient_penalty helper calls autograd.grad without create_graph=True, so the penalty never reaches the critic
# source: https://github.com/igul222/improved_wgan_training/issues/18
import torch
import torch.nn as nn
from torch import autograd

DIM, LAMBDA, CRITIC_ITERS, BATCH = 16, 10.0, 3, 8


def make_critic():
    return nn.Sequential(nn.Linear(2, DIM), nn.Tanh(), nn.Linear(DIM, DIM), nn.Tanh(), nn.Linear(DIM, 1))


def make_generator():
    return nn.Sequential(nn.Linear(2, DIM), nn.ReLU(), nn.Linear(DIM, 2))


def calc_gradient_penalty(netD, real_data, fake_data):
    alpha = torch.rand(real_data.size(0), 1).expand(real_data.size())
    interpolates = alpha * real_data + (1 - alpha) * fake_data
    interpolates.requires_grad_(True)
    disc_interpolates = netD(interpolates)
    gradients = autograd.grad(outputs=disc_interpolates, inputs=interpolates,  # expect: GG202
                              grad_outputs=torch.ones(disc_interpolates.size()))[0]
    gradient_penalty = ((gradients.norm(2, dim=1) - 1) ** 2).mean() * LAMBDA
    return gradient_penalty


def inf_train_gen():
    while True:
        yield torch.randn(BATCH, 2) * 0.5 + torch.tensor([2.0, -1.0])


def main():
    torch.manual_seed(0)
    netD, netG = make_critic(), make_generator()
    optimizerD = torch.optim.Adam(netD.parameters(), lr=1e-4, betas=(0.5, 0.9))
    optimizerG = torch.optim.Adam(netG.parameters(), lr=1e-4, betas=(0.5, 0.9))
    data = inf_train_gen()
    last_gp = None
    for iteration in range(3):
        for p in netD.parameters():
            p.requires_grad = True
        for _ in range(CRITIC_ITERS):
            real_data = next(data)
            netD.zero_grad()
            D_real = netD(real_data).mean()
            with torch.no_grad():
                fake = netG(torch.randn(BATCH, 2))
            D_fake = netD(fake).mean()
            gradient_penalty = calc_gradient_penalty(netD, real_data, fake)
            D_cost = D_fake - D_real + gradient_penalty  # also: GG202
            D_cost.backward()
            optimizerD.step()
            last_gp = gradient_penalty

        for p in netD.parameters():
            p.requires_grad = False
        netG.zero_grad()
        G_cost = -netD(netG(torch.randn(BATCH, 2))).mean()
        G_cost.backward()
        optimizerG.step()
    return netD, real_data, fake, last_gp


if __name__ == "__main__":
    netD, real_data, fake, last_gp = main()
    for p in netD.parameters():
        p.requires_grad = True
    # ground truth: the penalty is a constant, detached from the critic's weights
    assert last_gp.requires_grad is False and last_gp.grad_fn is None
    # ground truth: the critic's gradient from the penalty term alone is nothing
    gp = calc_gradient_penalty(netD, real_data, fake)
    assert gp.item() > 0.0
    assert not gp.requires_grad
