# corpus: WGAN critic iteration clamps netD weights through p.data after the critic forward and before errD.backward(), so backward uses weights the forward never saw
# source: https://github.com/martinarjovsky/WassersteinGAN/issues/50
import copy

import torch
import torch.nn as nn

CLAMP_LOWER, CLAMP_UPPER = -0.01, 0.01
NZ, NX, BATCH = 4, 6, 8


def make_nets():
    netG = nn.Sequential(nn.Linear(NZ, 16), nn.ReLU(True), nn.Linear(16, NX))
    netD = nn.Sequential(nn.Linear(NX, 16), nn.ReLU(True), nn.Linear(16, 16), nn.ReLU(True), nn.Linear(16, 1))
    return netG, netD


def critic_iteration(netD, netG, optimizerD, real, noise):
    netD.zero_grad()
    errD_real = netD(real).mean()
    fake = netG(noise).detach()
    errD_fake = netD(fake).mean()
    errD = errD_real - errD_fake
    # clamp parameters to a cube
    for p in netD.parameters():
        p.data.clamp_(CLAMP_LOWER, CLAMP_UPPER)  # expect: GG203
    errD.backward()  # also: GG203
    optimizerD.step()
    return errD.item()


def generator_iteration(netD, netG, optimizerG, noise):
    for p in netD.parameters():
        p.requires_grad = False
    netG.zero_grad()
    errG = netD(netG(noise)).mean()
    errG.backward()
    optimizerG.step()
    for p in netD.parameters():
        p.requires_grad = True
    return errG.item()


def critic_grads(netD, fake, real):
    loss = netD(real).mean() - netD(fake).mean()
    return torch.autograd.grad(loss, list(netD.parameters()))


if __name__ == "__main__":
    torch.manual_seed(0)
    netG, netD = make_nets()
    optimizerD = torch.optim.RMSprop(netD.parameters(), lr=5e-5)
    optimizerG = torch.optim.RMSprop(netG.parameters(), lr=5e-5)

    real, noise = torch.randn(BATCH, NX), torch.randn(BATCH, NZ)
    snapshot = copy.deepcopy(netD)
    clipped = copy.deepcopy(netD)
    with torch.no_grad():
        for p in clipped.parameters():
            p.clamp_(CLAMP_LOWER, CLAMP_UPPER)
    fake = netG(noise).detach()
    g_unclipped = critic_grads(snapshot, fake, real)
    g_clipped = critic_grads(clipped, fake, real)

    used = {}
    orig_step = optimizerD.step

    def spy_step(*a, **kw):
        used["grads"] = [p.grad.clone() for p in netD.parameters()]
        return orig_step(*a, **kw)

    optimizerD.step = spy_step
    critic_iteration(netD, netG, optimizerD, real, noise)
    optimizerD.step = orig_step
    for _ in range(2):
        critic_iteration(netD, netG, optimizerD, torch.randn(BATCH, NX), torch.randn(BATCH, NZ))
        generator_iteration(netD, netG, optimizerG, torch.randn(BATCH, NZ))

    # ground truth: the applied gradient is neither the gradient at the forward's weights nor at the clipped weights
    assert not all(torch.allclose(u, g, atol=1e-7) for u, g in zip(used["grads"], g_unclipped))
    assert not all(torch.allclose(u, g, atol=1e-7) for u, g in zip(used["grads"], g_clipped))
