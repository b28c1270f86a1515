# corpus: DCGAN-based WGAN-GP computes the critic's input gradients with autograd.grad but without create_graph=True, so the penalty built from them has no graph and its separate backward() fails
# raises: RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
# source: https://github.com/caogang/wgan-gp/issues/4
import torch
import torch.autograd as autograd
import torch.nn as nn
import torch.optim as optim

nz, ngf, ndf, nc = 8, 8, 8, 1


class _netG(nn.Module):
    def __init__(self, ngpu):
        super(_netG, self).__init__()
        self.ngpu = ngpu
        self.main = nn.Sequential(
            nn.ConvTranspose2d(nz, ngf * 2, 4, 1, 0, bias=False),
            nn.BatchNorm2d(ngf * 2),
            nn.ReLU(True),
            nn.ConvTranspose2d(ngf * 2, nc, 4, 2, 1, bias=False),
            nn.Tanh())

    def forward(self, input):
        return self.main(input)


class _netD(nn.Module):
    def __init__(self, ngpu):
        super(_netD, self).__init__()
        self.ngpu = ngpu
        self.main = nn.Sequential(
            nn.Conv2d(nc, ndf, 4, 2, 1, bias=False),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf, 1, 4, 1, 0, bias=False))

    def forward(self, input):
        return self.main(input).view(-1, 1).squeeze(1)


def calc_gradient_penalty(netD, real_data, fake_data, lamda=10.0):
    alpha = torch.rand(real_data.size(0), 1, 1, 1).expand(real_data.size())
    interpolates = alpha * real_data + (1 - alpha) * fake_data
    interpolates.requires_grad_(True)
    disc_interpolates = netD(interpolates)
    gradients = autograd.grad(outputs=disc_interpolates, inputs=interpolates,  # expect: GG202
                              grad_outputs=torch.ones(disc_interpolates.size()),
                              retain_graph=True, only_inputs=True)[0]
    gradients = gradients.view(gradients.size(0), -1)
    gradient_penalty = ((gradients.norm(2, dim=1) - 1) ** 2).mean() * lamda
    return gradient_penalty


def main(niter=2, batch_size=4, critic_iters=2):
    netG, netD = _netG(ngpu=1), _netD(ngpu=1)
    optimizerD = optim.Adam(netD.parameters(), lr=1e-4, betas=(0.5, 0.9))
    optimizerG = optim.Adam(netG.parameters(), lr=1e-4, betas=(0.5, 0.9))
    one = torch.tensor(1.0)
    mone = one * -1
    for iteration in range(niter):
        for p in netD.parameters():
            p.requires_grad = True
        for _ in range(critic_iters):
            real = torch.rand(batch_size, nc, 8, 8) * 2 - 1
            netD.zero_grad()
            errD_real = netD(real).mean()
            errD_real.backward(mone)
            noise = torch.randn(batch_size, nz, 1, 1)
            with torch.no_grad():
                fake = netG(noise)
            errD_fake = netD(fake).mean()
            errD_fake.backward(one)
            gradient_penalty = calc_gradient_penalty(netD, real, fake)
            gradient_penalty.backward()  # also: GG202
            optimizerD.step()
        for p in netD.parameters():
            p.requires_grad = False
        netG.zero_grad()
        errG = netD(netG(torch.randn(batch_size, nz, 1, 1))).mean()
        errG.backward(mone)
        optimizerG.step()
        print('[%d] Loss_D_real %.4f Loss_D_fake %.4f Loss_G %.4f'
              % (iteration, errD_real.item(), errD_fake.item(), errG.item()))


if __name__ == '__main__':
    torch.manual_seed(0)
    main()
