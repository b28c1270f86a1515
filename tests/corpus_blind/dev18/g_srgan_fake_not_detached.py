# corpus: SRGAN-style training where the discriminator loss is computed on the generator output without detach, so the discriminator backward frees the generator graph that the generator content/adversarial loss reuses.
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://blog.csdn.net/DuinoDu/article/details/78819344
import argparse

import torch
import torch.nn as nn
import torch.optim as optim


class Generator(nn.Module):
    def __init__(self, n_residual=2):
        super(Generator, self).__init__()
        self.head = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.PReLU())
        self.body = nn.Sequential(*[nn.Sequential(nn.Conv2d(16, 16, 3, padding=1), nn.BatchNorm2d(16), nn.PReLU())
                                    for _ in range(n_residual)])
        self.upsample = nn.Sequential(nn.Conv2d(16, 12, 3, padding=1), nn.PixelShuffle(2), nn.PReLU())
        self.tail = nn.Conv2d(3, 3, 3, padding=1)

    def forward(self, x):
        h = self.head(x)
        h = h + self.body(h)
        return self.tail(self.upsample(h))


class Discriminator(nn.Module):
    def __init__(self):
        super(Discriminator, self).__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.LeakyReLU(0.2),
            nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.BatchNorm2d(32), nn.LeakyReLU(0.2))
        self.classifier = nn.Sequential(nn.Flatten(), nn.Linear(32 * 4 * 4, 1), nn.Sigmoid())

    def forward(self, x):
        return self.classifier(self.features(x))


class FeatureExtractor(nn.Module):
    def __init__(self):
        super(FeatureExtractor, self).__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 8, 3, padding=1))
        for p in self.parameters():
            p.requires_grad = False

    def forward(self, x):
        return self.features(x)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--batch_size', type=int, default=4)
    parser.add_argument('--num_epochs', type=int, default=2)
    args = parser.parse_args([])
    torch.manual_seed(0)

    generator, discriminator, feature_extractor = Generator(), Discriminator(), FeatureExtractor()
    content_criterion = nn.MSELoss()
    adversarial_criterion = nn.BCELoss()
    ones_const = torch.ones(args.batch_size, 1)
    optim_generator = optim.Adam(generator.parameters(), lr=1e-4)
    optim_discriminator = optim.Adam(discriminator.parameters(), lr=1e-4)
    dataloader_train = [(torch.rand(args.batch_size, 3, 8, 8), torch.rand(args.batch_size, 3, 16, 16)) for _ in range(3)]

    for epoch in range(args.num_epochs):
        mean_discriminator_loss = 0.0
        mean_generator_total_loss = 0.0
        for i, data in enumerate(dataloader_train):
            x, y_real = data
            target_real = torch.rand(args.batch_size, 1) * 0.5 + 0.5
            target_fake = torch.rand(args.batch_size, 1) * 0.3
            y_fake = generator(x)

            # train discriminator
            discriminator.zero_grad()
            real_pred = discriminator(y_real)
            fake_pred = discriminator(y_fake)  # expect: GG105
            discriminator_loss = adversarial_criterion(real_pred, target_real) + \
                adversarial_criterion(fake_pred, target_fake)
            mean_discriminator_loss += discriminator_loss.item()
            discriminator_loss.backward()
            optim_discriminator.step()

            # train generator
            generator.zero_grad()
            features_real = feature_extractor(y_real).detach()
            features_fake = feature_extractor(y_fake)
            generator_content_loss = content_criterion(y_fake, y_real) + \
                content_criterion(features_fake, features_real) * 0.006
            generator_adversarial_loss = adversarial_criterion(discriminator(y_fake), ones_const)
            generator_total_loss = generator_content_loss + 1e-3 * generator_adversarial_loss
            mean_generator_total_loss += generator_total_loss.item()
            generator_total_loss.backward()  # also: GG105
            optim_generator.step()
        print('[%d] D: %.4f G: %.4f' % (epoch, mean_discriminator_loss / len(dataloader_train),
                                        mean_generator_total_loss / len(dataloader_train)))


if __name__ == "__main__":
    main()
