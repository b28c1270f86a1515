# corpus: DSGAN (real-world super-resolution degradation GAN) scores the generator output with the discriminator once, without .detach(), backpropagates the discriminator loss with retain_graph=True, steps D, then reuses the same fake score for the generator loss.
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/ManuelFritsche/real-world-sr/issues/18
import torch
import torch.nn as nn
import torch.nn.functional as F


class Generator(nn.Module):
    def __init__(self, ch=8):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(3, ch, 3, padding=1), nn.ReLU(), nn.Conv2d(ch, 3, 3, padding=1))

    def forward(self, x):
        return x + self.body(x)


class Discriminator(nn.Module):
    def __init__(self, ch=8):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(3, ch, 3, stride=2, padding=1), nn.LeakyReLU(0.2),
                                 nn.Conv2d(ch, 1, 3, padding=1))

    def forward(self, x):
        return self.net(x)


def discriminator_loss(real_tex, fake_tex):
    return F.binary_cross_entropy_with_logits(real_tex, torch.ones_like(real_tex)) + \
        F.binary_cross_entropy_with_logits(fake_tex, torch.zeros_like(fake_tex))


class GeneratorLoss(nn.Module):
    def __init__(self, w_col=1.0, w_tex=0.005):
        super().__init__()
        self.w_col, self.w_tex = w_col, w_tex

    def forward(self, fake_tex, fake_img, input_img):
        col = F.l1_loss(F.avg_pool2d(fake_img, 2), F.avg_pool2d(input_img, 2))
        tex = F.binary_cross_entropy_with_logits(fake_tex, torch.ones_like(fake_tex))
        return self.w_col * col + self.w_tex * tex


def train(train_loader, num_epochs=1, disc_freq=1, gen_freq=1):
    model_g, model_d = Generator(), Discriminator()
    g_loss_module = GeneratorLoss()
    optimizer_g = torch.optim.Adam(model_g.parameters(), lr=1e-4)
    optimizer_d = torch.optim.Adam(model_d.parameters(), lr=1e-4)
    iteration = 0
    for epoch in range(1, num_epochs + 1):
        model_g.train()
        model_d.train()
        for input_img, disc_img in train_loader:
            iteration += 1
            fake_img = model_g(input_img)
            real_tex = model_d(disc_img)
            fake_tex = model_d(fake_img)  # expect: GG105
            if iteration % disc_freq == 0:
                model_d.zero_grad()
                d_tex_loss = discriminator_loss(real_tex, fake_tex)
                d_tex_loss.backward(retain_graph=True)
                optimizer_d.step()
            if iteration % gen_freq == 0:
                model_g.zero_grad()
                g_loss = g_loss_module(fake_tex, fake_img, input_img)  # also: GG105
                g_loss.backward()  # also: GG105
                optimizer_g.step()
            print("iter", iteration, "d_loss", round(d_tex_loss.item(), 4))
    return model_g, model_d


def main():
    torch.manual_seed(0)
    loader = [(torch.rand(2, 3, 8, 8), torch.rand(2, 3, 8, 8)) for _ in range(2)]
    train(loader)


if __name__ == "__main__":
    main()
