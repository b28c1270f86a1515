# corpus: SRGAN trainer (generator step first, then discriminator step) that feeds the already backpropagated super-resolved images to the discriminator without .detach(), so the D backward walks into the generator graph the G backward freed.
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/sgrvinod/a-PyTorch-Tutorial-to-Super-Resolution/blob/3178695bf7bbc2a0e69795d4605f6809b2710b68/train_srgan.py
import time

import torch
from torch import nn

# Data parameters
crop_size = 16  # crop size of target HR images
scaling_factor = 2  # the scaling factor for the generator

# Generator parameters
n_channels_g = 8
n_blocks_g = 2

# Discriminator parameters
n_channels_d = 8
fc_size_d = 16

# Learning parameters
batch_size = 4
start_epoch = 0
epochs = 2
beta = 1e-3  # the coefficient to weight the adversarial loss in the perceptual loss
print_freq = 1
lr = 1e-4
grad_clip = None

device = torch.device("cpu")

rgb_weights = torch.FloatTensor([65.481, 128.553, 24.966])
imagenet_mean = torch.FloatTensor([0.485, 0.456, 0.406]).unsqueeze(1).unsqueeze(2)
imagenet_std = torch.FloatTensor([0.229, 0.224, 0.225]).unsqueeze(1).unsqueeze(2)


def convert_image(img, source, target):
    """Convert an image from a source format to a target format."""
    assert source in {'[0, 1]', '[-1, 1]'}
    assert target in {'[0, 1]', 'imagenet-norm'}
    if source == '[-1, 1]':
        img = (img + 1.) / 2.
    if target == 'imagenet-norm':
        if img.ndimension() == 4:
            img = (img - imagenet_mean.unsqueeze(0)) / imagenet_std.unsqueeze(0)
        else:
            img = (img - imagenet_mean) / imagenet_std
    return img


class AverageMeter(object):
    """Keeps track of most recent, average, sum, and count of a metric."""

    def __init__(self):
        self.reset()

    def reset(self):
        self.val = 0
        self.avg = 0
        self.sum = 0
        self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


class ResidualBlock(nn.Module):
    def __init__(self, n_channels):
        super(ResidualBlock, self).__init__()
        self.conv1 = nn.Conv2d(n_channels, n_channels, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(n_channels)
        self.act = nn.PReLU()
        self.conv2 = nn.Conv2d(n_channels, n_channels, 3, padding=1)
        self.bn2 = nn.BatchNorm2d(n_channels)

    def forward(self, x):
        residual = x
        out = self.act(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return out + residual


class Generator(nn.Module):
    """SRResNet-style generator."""

    def __init__(self, n_channels=8, n_blocks=2, scaling_factor=2):
        super(Generator, self).__init__()
        self.conv_in = nn.Sequential(nn.Conv2d(3, n_channels, 5, padding=2), nn.PReLU())
        self.blocks = nn.Sequential(*[ResidualBlock(n_channels) for _ in range(n_blocks)])
        self.upsample = nn.Sequential(nn.Conv2d(n_channels, n_channels * scaling_factor ** 2, 3, padding=1),
                                      nn.PixelShuffle(scaling_factor), nn.PReLU())
        self.conv_out = nn.Conv2d(n_channels, 3, 5, padding=2)

    def forward(self, lr_imgs):
        out = self.conv_in(lr_imgs)
        out = self.blocks(out) + out
        out = self.upsample(out)
        return torch.tanh(self.conv_out(out))


class Discriminator(nn.Module):
    def __init__(self, n_channels=8, fc_size=16):
        super(Discriminator, self).__init__()
        self.conv_blocks = nn.Sequential(
            nn.Conv2d(3, n_channels, 3, padding=1), nn.LeakyReLU(0.2),
            nn.Conv2d(n_channels, n_channels * 2, 3, stride=2, padding=1), nn.BatchNorm2d(n_channels * 2),
            nn.LeakyReLU(0.2))
        self.adaptive_pool = nn.AdaptiveAvgPool2d((2, 2))
        self.fc1 = nn.Linear(n_channels * 2 * 4, fc_size)
        self.leaky_relu = nn.LeakyReLU(0.2)
        self.fc2 = nn.Linear(fc_size, 1)

    def forward(self, imgs):
        batch_size = imgs.size(0)
        output = self.conv_blocks(imgs)
        output = self.adaptive_pool(output)
        output = self.fc1(output.view(batch_size, -1))
        output = self.leaky_relu(output)
        return self.fc2(output).view(-1)


class TruncatedVGG19(nn.Module):
    """Stand-in for the truncated VGG19 feature extractor (frozen)."""

    def __init__(self):
        super(TruncatedVGG19, self).__init__()
        self.truncated_vgg19 = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(),
                                             nn.Conv2d(8, 8, 3, padding=1))
        for p in self.truncated_vgg19.parameters():
            p.requires_grad = False

    def forward(self, x):
        return self.truncated_vgg19(x)


def make_loader(n_batches):
    torch.manual_seed(1)
    loader = []
    for _ in range(n_batches):
        hr = torch.rand(batch_size, 3, crop_size, crop_size)
        lr_img = nn.functional.avg_pool2d(hr, scaling_factor)
        loader.append((convert_image(lr_img, '[0, 1]', 'imagenet-norm'),
                       convert_image(hr, '[0, 1]', 'imagenet-norm')))
    return loader


def main():
    """Training."""
    torch.manual_seed(0)
    generator = Generator(n_channels=n_channels_g, n_blocks=n_blocks_g, scaling_factor=scaling_factor)
    optimizer_g = torch.optim.Adam(params=filter(lambda p: p.requires_grad, generator.parameters()), lr=lr)
    discriminator = Discriminator(n_channels=n_channels_d, fc_size=fc_size_d)
    optimizer_d = torch.optim.Adam(params=filter(lambda p: p.requires_grad, discriminator.parameters()), lr=lr)

    truncated_vgg19 = TruncatedVGG19()
    truncated_vgg19.eval()

    content_loss_criterion = nn.MSELoss()
    adversarial_loss_criterion = nn.BCEWithLogitsLoss()

    train_loader = make_loader(3)

    for epoch in range(start_epoch, epochs):
        train(train_loader=train_loader,
              generator=generator,
              discriminator=discriminator,
              truncated_vgg19=truncated_vgg19,
              content_loss_criterion=content_loss_criterion,
              adversarial_loss_criterion=adversarial_loss_criterion,
              optimizer_g=optimizer_g,
              optimizer_d=optimizer_d,
              epoch=epoch)


def train(train_loader, generator, discriminator, truncated_vgg19, content_loss_criterion, adversarial_loss_criterion,
          optimizer_g, optimizer_d, epoch):
    """One epoch's training."""
    generator.train()
    discriminator.train()

    batch_time = AverageMeter()
    losses_c = AverageMeter()
    losses_a = AverageMeter()
    losses_d = AverageMeter()

    start = time.time()

    for i, (lr_imgs, hr_imgs) in enumerate(train_loader):
        lr_imgs = lr_imgs.to(device)
        hr_imgs = hr_imgs.to(device)

        # GENERATOR UPDATE
        sr_imgs = generator(lr_imgs)
        sr_imgs = convert_image(sr_imgs, source='[-1, 1]', target='imagenet-norm')

        sr_imgs_in_vgg_space = truncated_vgg19(sr_imgs)
        hr_imgs_in_vgg_space = truncated_vgg19(hr_imgs).detach()

        sr_discriminated = discriminator(sr_imgs)

        content_loss = content_loss_criterion(sr_imgs_in_vgg_space, hr_imgs_in_vgg_space)
        adversarial_loss = adversarial_loss_criterion(sr_discriminated, torch.ones_like(sr_discriminated))
        perceptual_loss = content_loss + beta * adversarial_loss

        optimizer_g.zero_grad()
        perceptual_loss.backward()
        optimizer_g.step()

        losses_c.update(content_loss.item(), lr_imgs.size(0))
        losses_a.update(adversarial_loss.item(), lr_imgs.size(0))

        # DISCRIMINATOR UPDATE
        hr_discriminated = discriminator(hr_imgs)
        sr_discriminated = discriminator(sr_imgs)  # expect: GG105

        adversarial_loss = adversarial_loss_criterion(sr_discriminated, torch.zeros_like(sr_discriminated)) + \
            adversarial_loss_criterion(hr_discriminated, torch.ones_like(hr_discriminated))

        optimizer_d.zero_grad()
        adversarial_loss.backward()  # also: GG105
        optimizer_d.step()

        losses_d.update(adversarial_loss.item(), hr_imgs.size(0))
        batch_time.update(time.time() - start)
        start = time.time()

        if i % print_freq == 0:
            print('Epoch: [{0}][{1}/{2}] Cont. Loss {loss_c.val:.4f} Adv. Loss {loss_a.val:.4f} '
                  'Disc. Loss {loss_d.val:.4f}'.format(epoch, i, len(train_loader), loss_c=losses_c,
                                                       loss_a=losses_a, loss_d=losses_d))


if __name__ == '__main__':
    main()
