# corpus: WGAN-GP loop that drives the generator with gen_cost.backward(mone) on a scalar critic mean, freezes the critic during the G step, detaches fakes for the critic and builds the gradient penalty with create_graph=True; all backward calls are valid.
# source: https://github.com/jalola/improved-wgan-pytorch/issues/9
import torch
import torch.nn as nn
from torch import autograd, optim

DIM, LAMBDA, BATCH_SIZE, CRITIC_ITERS, GENER_ITERS = 16, 10, 8, 2, 1


class GoodGenerator(nn.Module):
    def __init__(self):
        super(GoodGenerator, self).__init__()
        self.ln1 = nn.Linear(32, 4 * 4 * DIM)
        self.net = nn.Sequential(nn.BatchNorm2d(DIM), nn.ReLU(), nn.ConvTranspose2d(DIM, 8, 4, 2, 1), nn.ReLU(),
                                 nn.Conv2d(8, 3, 3, padding=1), nn.Tanh())

    def forward(self, input):
        output = self.ln1(input.contiguous()).view(-1, DIM, 4, 4)
        return self.net(output)


class GoodDiscriminator(nn.Module):
    def __init__(self):
        super(GoodDiscriminator, self).__init__()
        self.net = nn.Sequential(nn.Conv2d(3, 8, 3, 2, 1), nn.LeakyReLU(0.2), nn.Conv2d(8, DIM, 3, 2, 1),
                                 nn.LeakyReLU(0.2))
        self.ln1 = nn.Linear(2 * 2 * DIM, 1)

    def forward(self, input):
        output = self.net(input.contiguous()).view(input.size(0), -1)
        return self.ln1(output).view(-1)


def calc_gradient_penalty(netD, real_data, fake_data):
    alpha = torch.rand(BATCH_SIZE, 1)
    alpha = alpha.expand(BATCH_SIZE, int(real_data.nelement() / BATCH_SIZE)).contiguous()
    alpha = alpha.view(BATCH_SIZE, 3, 8, 8)
    interpolates = alpha * real_data.detach() + ((1 - alpha) * fake_data.detach())
    interpolates.requires_grad_(True)
    disc_interpolates = netD(interpolates)
    gradients = autograd.grad(outputs=disc_interpolates, inputs=interpolates,
                              grad_outputs=torch.ones(disc_interpolates.size()),
                              create_graph=True, retain_graph=True, only_inputs=True)[0]
    gradients = gradients.view(gradients.size(0), -1)
    return ((gradients.norm(2, dim=1) - 1) ** 2).mean() * LAMBDA


def gen_rand_noise():
    return torch.randn(BATCH_SIZE, 32)


def train(aG, aD, dataloader, end_iter=2):
    optimizer_g = optim.Adam(aG.parameters(), lr=1e-4, betas=(0.0, 0.9))
    optimizer_d = optim.Adam(aD.parameters(), lr=1e-4, betas=(0.0, 0.9))
    one = torch.tensor(1.0)
    mone = one * -1
    dataiter = iter(dataloader)
    for iteration in range(end_iter):
        # ---------------------TRAIN G------------------------
        for p in aD.parameters():
            p.requires_grad_(False)
        gen_cost = None
        for i in range(GENER_ITERS):
            aG.zero_grad()
            noise = gen_rand_noise()
            noise.requires_grad_(True)
            fake_data = aG(noise)
            gen_cost = aD(fake_data)
            gen_cost = gen_cost.mean()
            gen_cost.backward(mone)
            gen_cost = -gen_cost
        optimizer_g.step()
        # ---------------------TRAIN D------------------------
        for p in aD.parameters():
            p.requires_grad_(True)
        for i in range(CRITIC_ITERS):
            aD.zero_grad()
            noise = gen_rand_noise()
            with torch.no_grad():
                noisev = noise
            fake_data = aG(noisev).detach()
            real_data = next(dataiter)
            disc_real = aD(real_data).mean()
            disc_fake = aD(fake_data).mean()
            gradient_penalty = calc_gradient_penalty(aD, real_data, fake_data)
            disc_cost = disc_fake - disc_real + gradient_penalty
            disc_cost.backward()
            w_dist = disc_fake - disc_real
            optimizer_d.step()
        print(iteration, gen_cost.item(), disc_cost.item(), w_dist.item())


def main():
    torch.manual_seed(0)
    aG, aD = GoodGenerator(), GoodDiscriminator()
    dataloader = [torch.rand(BATCH_SIZE, 3, 8, 8) * 2 - 1 for _ in range(12)]
    train(aG, aD, dataloader)


if __name__ == "__main__":
    main()
