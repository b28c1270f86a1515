# corpus: SRGAN adversarial training routine (SRGAN-PyTorch train_adversarial shape): discriminator.zero_grad() and generator.zero_grad() clear each model's gradients at the start of its own update, the discriminator sees sr.detach(), the generator loss mixes pixel, content and adversarial terms in one backward, and meters use .item(); correct
# source: https://github.com/Lornatang/SRGAN-PyTorch/issues/42
import torch
import torch.nn as nn
import torch.nn.functional as F


class AverageMeter:
    def __init__(self, name):
        self.name, self.sum, self.count = name, 0.0, 0

    def update(self, val, n=1):
        self.sum += val * n
        self.count += n

    @property
    def avg(self):
        return self.sum / max(self.count, 1)


class Generator(nn.Module):
    def __init__(self, ch=8):
        super().__init__()
        self.head = nn.Conv2d(3, ch, 3, padding=1)
        self.body = nn.Sequential(nn.Conv2d(ch, ch, 3, padding=1), nn.PReLU(), nn.Conv2d(ch, ch, 3, padding=1))
        self.up = nn.Sequential(nn.Conv2d(ch, ch * 4, 3, padding=1), nn.PixelShuffle(2), nn.PReLU())
        self.tail = nn.Conv2d(ch, 3, 3, padding=1)

    def forward(self, lr):
        x = self.head(lr)
        x = x + self.body(x)
        return torch.tanh(self.tail(self.up(x)))


class Discriminator(nn.Module):
    def __init__(self, ch=8):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, ch, 3, 2, 1), nn.LeakyReLU(0.2), nn.Conv2d(ch, ch * 2, 3, 2, 1), nn.LeakyReLU(0.2))
        self.classifier = nn.Sequential(nn.Flatten(), nn.Linear(ch * 2 * 4 * 4, 1))

    def forward(self, x):
        return self.classifier(self.features(x))


class ContentLoss(nn.Module):
    def __init__(self):
        super().__init__()
        self.feature_extractor = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU())
        for p in self.feature_extractor.parameters():
            p.requires_grad = False

    def forward(self, sr, hr):
        return F.mse_loss(self.feature_extractor(sr), self.feature_extractor(hr.detach()))


def train_adversarial(train_dataloader, discriminator, generator, content_criterion, d_optimizer, g_optimizer, epoch):
    pixel_criterion, adversarial_criterion = nn.MSELoss(), nn.BCEWithLogitsLoss()
    d_losses, g_losses = AverageMeter("D Loss"), AverageMeter("G Loss")
    for index, (lr, hr) in enumerate(train_dataloader):
        batch_size = lr.size(0)
        real_label, fake_label = torch.ones(batch_size, 1), torch.zeros(batch_size, 1)

        sr = generator(lr)
        discriminator.zero_grad()
        d_loss_hr = adversarial_criterion(discriminator(hr), real_label)
        d_loss_sr = adversarial_criterion(discriminator(sr.detach()), fake_label)
        d_loss = d_loss_hr + d_loss_sr
        d_loss.backward()
        d_optimizer.step()

        generator.zero_grad()
        pixel_loss = 1.0 * pixel_criterion(sr, hr.detach())
        content_loss = 1.0 * content_criterion(sr, hr.detach())
        adversarial_loss = 0.001 * adversarial_criterion(discriminator(sr), real_label)
        g_loss = pixel_loss + content_loss + adversarial_loss
        g_loss.backward()
        g_optimizer.step()

        d_losses.update(d_loss.item(), batch_size)
        g_losses.update(g_loss.item(), batch_size)
    print(f"Epoch {epoch} D Loss {d_losses.avg:.4f} G Loss {g_losses.avg:.4f}")
    return d_losses.avg, g_losses.avg


def main():
    torch.manual_seed(0)
    generator, discriminator = Generator(), Discriminator()
    d_optimizer = torch.optim.Adam(discriminator.parameters(), 1e-4, (0.9, 0.999))
    g_optimizer = torch.optim.Adam(generator.parameters(), 1e-4, (0.9, 0.999))
    loader = [(torch.rand(2, 3, 8, 8), torch.rand(2, 3, 16, 16) * 2 - 1) for _ in range(3)]
    for epoch in range(2):
        train_adversarial(loader, discriminator, generator, ContentLoss(), d_optimizer, g_optimizer, epoch)


if __name__ == "__main__":
    main()
