import torch.nn as nn


class Generator(nn.Module):
    def __init__(self, latent_dim, img_dim):
        super().__init__()

        def block(in_feat, out_feat):
            return [nn.Linear(in_feat, out_feat), nn.LeakyReLU(0.2, inplace=True)]

        self.model = nn.Sequential(
            *block(latent_dim, 32),
            *block(32, 32),
            nn.Linear(32, img_dim),
            nn.Tanh(),
        )

    def forward(self, z):
        return self.model(z)


class Discriminator(nn.Module):
    def __init__(self, img_dim):
        super().__init__()
        self.model = nn.Sequential(
            nn.Linear(img_dim, 32),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Linear(32, 16),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Linear(16, 1),
        )

    def forward(self, img):
        return self.model(img.view(img.shape[0], -1))
