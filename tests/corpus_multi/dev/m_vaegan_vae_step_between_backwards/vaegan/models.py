import torch
import torch.nn as nn


class VAE(nn.Module):
    def __init__(self, nz=8):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Conv2d(1, 8, kernel_size=3, stride=2, padding=1),
            nn.BatchNorm2d(8),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(8, 8, kernel_size=3, stride=2, padding=1),
            nn.BatchNorm2d(8),
            nn.LeakyReLU(0.2, inplace=True),
        )
        self.encoder_fc1 = nn.Linear(8 * 4 * 4, nz)
        self.encoder_fc2 = nn.Linear(8 * 4 * 4, nz)
        self.decoder_fc = nn.Linear(nz, 8 * 4 * 4)
        self.decoder = nn.Sequential(
            nn.ConvTranspose2d(8, 8, 4, 2, 1),
            nn.ReLU(inplace=True),
            nn.ConvTranspose2d(8, 1, 4, 2, 1),
            nn.Sigmoid(),
        )

    def noise_reparameterize(self, mean, logvar):
        eps = torch.randn(mean.shape)
        return mean + eps * torch.exp(logvar)

    def decode(self, z):
        out = self.decoder_fc(z).view(z.shape[0], 8, 4, 4)
        return self.decoder(out)

    def forward(self, x):
        out1, out2 = self.encoder(x), self.encoder(x)
        mean = self.encoder_fc1(out1.view(out1.shape[0], -1))
        logstd = self.encoder_fc2(out2.view(out2.shape[0], -1))
        z = self.noise_reparameterize(mean, logstd)
        return self.decode(z), mean, logstd


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.dis = nn.Sequential(
            nn.Conv2d(1, 8, 3, stride=1, padding=1),
            nn.LeakyReLU(0.2, True),
            nn.MaxPool2d((2, 2)),
            nn.Conv2d(8, 16, 3, stride=1, padding=1),
            nn.LeakyReLU(0.2, True),
            nn.MaxPool2d((2, 2)),
        )
        self.fc = nn.Sequential(nn.Linear(4 * 4 * 16, 32), nn.LeakyReLU(0.2, True), nn.Linear(32, 1), nn.Sigmoid())

    def forward(self, input):
        x = self.dis(input)
        x = x.view(x.size(0), -1)
        return self.fc(x).squeeze(1)
