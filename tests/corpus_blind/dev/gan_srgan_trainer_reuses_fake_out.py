# corpus: SRGAN-style Trainer: d_loss.backward(retain_graph=True), optimizerD.step(), then g_loss built from the same fake_out is backpropagated
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/leftthomas/SRGAN/issues/79
import torch
import torch.nn as nn
import torch.nn.functional as F


class Generator(nn.Module):
    def __init__(self, scale=2):
        super().__init__()
        self.scale = scale
        self.body = nn.Sequential(nn.Linear(8, 32), nn.PReLU(), nn.Linear(32, 8 * scale))

    def forward(self, lr):
        return torch.tanh(self.body(lr))


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(16, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))

    def forward(self, x):
        return torch.sigmoid(self.net(x))


class GeneratorLoss(nn.Module):
    def forward(self, out_labels, out_images, target_images):
        adversarial_loss = torch.mean(1 - out_labels)
        image_loss = F.mse_loss(out_images, target_images)
        return image_loss + 1e-3 * adversarial_loss


class SRGANTrainer:
    def __init__(self):
        self.netG = Generator()
        self.netD = Discriminator()
        self.generator_criterion = GeneratorLoss()
        self.optimizerG = torch.optim.Adam(self.netG.parameters())
        self.optimizerD = torch.optim.Adam(self.netD.parameters())
        self.running = {"d_loss": 0.0, "g_loss": 0.0, "batch_sizes": 0}

    def train_step(self, data, target):
        real_img = target
        z = data
        fake_img = self.netG(z)

        # (1) Update D network: maximize D(x)-1-D(G(z))
        self.netD.zero_grad()
        real_out = self.netD(real_img).mean()
        fake_out = self.netD(fake_img).mean()
        d_loss = 1 - real_out + fake_out
        d_loss.backward(retain_graph=True)  # also: GG111
        self.optimizerD.step()  # expect: GG111

        # (2) Update G network: minimize 1-D(G(z)) + Image Loss
        self.netG.zero_grad()
        g_loss = self.generator_criterion(fake_out, fake_img, real_img)
        g_loss.backward()  # also: GG111
        self.optimizerG.step()

        self.running["g_loss"] += g_loss.item() * data.size(0)
        self.running["d_loss"] += d_loss.item() * data.size(0)
        self.running["batch_sizes"] += data.size(0)

    def fit(self, loader, epochs):
        for _ in range(epochs):
            for data, target in loader:
                self.train_step(data, target)


def main():
    torch.manual_seed(0)
    loader = [(torch.randn(4, 8), torch.randn(4, 16)) for _ in range(3)]
    SRGANTrainer().fit(loader, epochs=2)


if __name__ == "__main__":
    main()
