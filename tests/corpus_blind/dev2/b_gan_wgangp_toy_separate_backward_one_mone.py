# corpus: toy WGAN-GP critic calls D_real.backward(mone), D_fake.backward(one) and gradient_penalty.backward() on three separately built scalar graphs (penalty from autograd.grad with create_graph=True), then logs D_fake - D_real + penalty without backpropagating it (correct)
# source: https://github.com/caogang/wgan-gp/issues/9
import random

import torch
import torch.autograd as autograd
import torch.nn as nn
import torch.optim as optim

DIM = 32
LAMBDA = .1
CRITIC_ITERS = 3
BATCH_SIZE = 16
ITERS = 3


class Generator(nn.Module):
    def __init__(self):
        super(Generator, self).__init__()
        self.main = nn.Sequential(nn.Linear(2, DIM), nn.ReLU(True), nn.Linear(DIM, DIM), nn.ReLU(True), nn.Linear(DIM, 2))

    def forward(self, noise):
        return self.main(noise)


class Discriminator(nn.Module):
    def __init__(self):
        super(Discriminator, self).__init__()
        self.main = nn.Sequential(nn.Linear(2, DIM), nn.ReLU(True), nn.Linear(DIM, DIM), nn.ReLU(True), nn.Linear(DIM, 1))

    def forward(self, inputs):
        return self.main(inputs).view(-1)


def weights_init(m):
    if m.__class__.__name__.find('Linear') != -1:
        m.weight.data.normal_(0.0, 0.02)
        m.bias.data.fill_(0)


def inf_train_gen():
    centers = [(2, 0), (-2, 0), (0, 2), (0, -2)]
    while True:
        dataset = []
        for _ in range(BATCH_SIZE):
            center = random.choice(centers)
            dataset.append([center[0] + random.gauss(0, .02), center[1] + random.gauss(0, .02)])
        yield torch.tensor(dataset) / 1.414


def calc_gradient_penalty(netD, real_data, fake_data):
    alpha = torch.rand(BATCH_SIZE, 1).expand(real_data.size())
    interpolates = (alpha * real_data + (1 - alpha) * fake_data).requires_grad_(True)
    disc_interpolates = netD(interpolates)
    gradients = autograd.grad(outputs=disc_interpolates, inputs=interpolates,
                              grad_outputs=torch.ones(BATCH_SIZE), create_graph=True, only_inputs=True)[0]
    return ((gradients.norm(2, dim=1) - 1) ** 2).mean() * LAMBDA


def main():
    netG, netD = Generator(), Discriminator()
    netD.apply(weights_init)
    netG.apply(weights_init)
    optimizerD = optim.Adam(netD.parameters(), lr=1e-4, betas=(0.5, 0.9))
    optimizerG = optim.Adam(netG.parameters(), lr=1e-4, betas=(0.5, 0.9))
    one = torch.tensor(1.0)
    mone = one * -1
    data = inf_train_gen()
    for iteration in range(ITERS):
        for p in netD.parameters():
            p.requires_grad = True
        for iter_d in range(CRITIC_ITERS):
            real_data = next(data)
            netD.zero_grad()
            D_real = netD(real_data).mean()
            D_real.backward(mone)
            with torch.no_grad():
                fake = netG(torch.randn(BATCH_SIZE, 2))
            D_fake = netD(fake).mean()
            D_fake.backward(one)
            gradient_penalty = calc_gradient_penalty(netD, real_data, fake)
            gradient_penalty.backward()
            D_cost = D_fake - D_real + gradient_penalty
            optimizerD.step()

        for p in netD.parameters():
            p.requires_grad = False
        netG.zero_grad()
        G = netD(netG(torch.randn(BATCH_SIZE, 2))).mean()
        G.backward(mone)
        optimizerG.step()
        print('disc cost', D_cost.item(), 'gen cost', (-G).item())


if __name__ == '__main__':
    torch.manual_seed(0)
    random.seed(0)
    main()
