# corpus: WGAN-GP (models.py G/D MLPs, losses.py calc_gradient_penalty): correct - the penalty uses autograd.grad(create_graph=True) on fresh interpolates, the critic loss D_fake - D_real + penalty is backpropagated once per critic step, fakes come from no_grad, and D is frozen during the G step
# source: https://github.com/caogang/wgan-gp/issues/21
import torch
import torch.optim as optim

from losses import calc_gradient_penalty
from models import Discriminator, Generator

CRITIC_ITERS = 3
ITERS = 3
BATCH_SIZE = 8


def inf_train_gen():
    while True:
        yield torch.rand(BATCH_SIZE, 16).round()


def main():
    torch.manual_seed(0)
    netG = Generator()
    netD = Discriminator()
    optimizerD = optim.Adam(netD.parameters(), lr=1e-4, betas=(0.5, 0.9))
    optimizerG = optim.Adam(netG.parameters(), lr=1e-4, betas=(0.5, 0.9))
    mone = torch.tensor(-1.0)
    data = inf_train_gen()

    for iteration in range(ITERS):
        ############################
        # (1) Update D network
        ###########################
        for p in netD.parameters():
            p.requires_grad = True
        for iter_d in range(CRITIC_ITERS):
            real_data = next(data)
            netD.zero_grad()
            D_real = netD(real_data).mean()
            noise = torch.randn(BATCH_SIZE, 8)
            with torch.no_grad():
                fake = netG(noise)
            D_fake = netD(fake).mean()
            gradient_penalty = calc_gradient_penalty(netD, real_data, fake)
            D_cost = D_fake - D_real + gradient_penalty
            D_cost.backward()
            Wasserstein_D = (D_real - D_fake).item()
            optimizerD.step()

        ############################
        # (2) Update G network
        ###########################
        for p in netD.parameters():
            p.requires_grad = False
        netG.zero_grad()
        noise = torch.randn(BATCH_SIZE, 8)
        fake = netG(noise)
        G = netD(fake).mean()
        G.backward(mone)
        G_cost = -G.item()
        optimizerG.step()
        print(f"iter {iteration}: D cost {D_cost.item():.4f} G cost {G_cost:.4f} W_D {Wasserstein_D:.4f}")


if __name__ == "__main__":
    main()
