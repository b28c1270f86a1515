# corpus: SRGAN train loop: D step keeps retain_graph=True and steps optimizerD, but the G step regenerates fake_img and fake_out before g_loss.backward()
# source: https://github.com/leftthomas/SRGAN/issues/74
import torch
import torch.nn as nn
import torch.nn.functional as F


class Generator(nn.Module):
    def __init__(self, scale_factor=2, dim=6):
        super().__init__()
        self.block1 = nn.Sequential(nn.Linear(dim, 24), nn.PReLU())
        self.block2 = nn.Linear(24, dim * scale_factor)

    def forward(self, x):
        return (torch.tanh(self.block2(self.block1(x))) + 1) / 2


class Discriminator(nn.Module):
    def __init__(self, dim=12):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, 24), nn.LeakyReLU(0.2), nn.Linear(24, 1))

    def forward(self, x):
        return torch.sigmoid(self.net(x).view(x.size(0)))


class GeneratorLoss(nn.Module):
    def forward(self, out_labels, out_images, target_images):
        adversarial_loss = torch.mean(1 - out_labels)
        image_loss = F.mse_loss(out_images, target_images)
        tv_loss = (out_images[:, 1:] - out_images[:, :-1]).pow(2).mean()
        return image_loss + 0.001 * adversarial_loss + 2e-8 * tv_loss


def run_epoch(netG, netD, generator_criterion, optimizerG, optimizerD, train_loader):
    running_results = {"batch_sizes": 0, "d_loss": 0.0, "g_loss": 0.0, "d_score": 0.0, "g_score": 0.0}
    for data, target in train_loader:
        batch_size = data.size(0)
        running_results["batch_sizes"] += batch_size

        ############################
        # (1) Update D network: maximize D(x)-1-D(G(z))
        ###########################
        real_img = target
        z = data
        fake_img = netG(z)
        netD.zero_grad()
        real_out = netD(real_img).mean()
        fake_out = netD(fake_img).mean()
        d_loss = 1 - real_out + fake_out
        d_loss.backward(retain_graph=True)
        optimizerD.step()

        ############################
        # (2) Update G network: minimize 1-D(G(z)) + Perception Loss + Image Loss + TV Loss
        ###########################
        netG.zero_grad()
        fake_img = netG(z)
        fake_out = netD(fake_img).mean()
        g_loss = generator_criterion(fake_out, fake_img, real_img)
        g_loss.backward()
        optimizerG.step()

        running_results["g_loss"] += g_loss.item() * batch_size
        running_results["d_loss"] += d_loss.item() * batch_size
        running_results["d_score"] += real_out.item() * batch_size
        running_results["g_score"] += fake_out.item() * batch_size
    return running_results


if __name__ == "__main__":
    torch.manual_seed(0)
    netG, netD = Generator(), Discriminator()
    optimizerG = torch.optim.Adam(netG.parameters())
    optimizerD = torch.optim.Adam(netD.parameters())
    loader = [(torch.rand(4, 6), torch.rand(4, 12)) for _ in range(3)]
    for epoch in range(2):
        results = run_epoch(netG, netD, GeneratorLoss(), optimizerG, optimizerD, loader)
    assert all(isinstance(v, float) for k, v in results.items() if k != "batch_sizes")
    assert all(p.grad is not None for p in netG.parameters())
    assert all(p.grad is not None for p in netD.parameters())
