# corpus: Keras-style VAE ported to a torch training step; the encoder registers its KL term via add_loss as a per-sample vector (mean over axis=1 only), so the total loss is not a scalar and backward() has no implicit gradient.
# raises: RuntimeError: grad can be implicitly created only for scalar outputs
# source: https://github.com/keras-team/keras/issues/19560
import torch
import torch.nn as nn
import torch.nn.functional as F


class Sampling(nn.Module):
    def forward(self, inputs):
        z_mean, z_log_var = inputs
        epsilon = torch.randn_like(z_mean)
        return z_mean + torch.exp(0.5 * z_log_var) * epsilon


class Encoder(nn.Module):
    def __init__(self, latent_dim=2):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(1, 8, 3, stride=2, padding=1), nn.ReLU(),
                                  nn.Conv2d(8, 16, 3, stride=2, padding=1), nn.ReLU(), nn.Flatten())
        self.dense = nn.Linear(16 * 4 * 4, 16)
        self.z_mean = nn.Linear(16, latent_dim)
        self.z_log_var = nn.Linear(16, latent_dim)
        self.sampling = Sampling()
        self.losses = []

    def add_loss(self, loss):
        self.losses.append(loss)

    def forward(self, x):
        h = F.relu(self.dense(self.conv(x)))
        z_mean, z_log_var = self.z_mean(h), self.z_log_var(h)
        kl_loss = -0.5 * torch.mean(1 + z_log_var - z_mean.pow(2) - torch.exp(z_log_var), dim=1)
        self.add_loss(kl_loss)
        return z_mean, z_log_var, self.sampling((z_mean, z_log_var))


class Decoder(nn.Module):
    def __init__(self, latent_dim=2):
        super().__init__()
        self.dense = nn.Linear(latent_dim, 16 * 4 * 4)
        self.deconv = nn.Sequential(nn.ConvTranspose2d(16, 8, 4, 2, 1), nn.ReLU(),
                                    nn.ConvTranspose2d(8, 1, 4, 2, 1), nn.Sigmoid())

    def forward(self, z):
        return self.deconv(F.relu(self.dense(z)).view(-1, 16, 4, 4))


class VAE(nn.Module):
    def __init__(self, encoder, decoder):
        super().__init__()
        self.encoder = encoder
        self.decoder = decoder

    @property
    def losses(self):
        return self.encoder.losses

    def forward(self, x):
        self.encoder.losses.clear()
        z_mean, z_log_var, z = self.encoder(x)
        return self.decoder(z)


def train_step(model, optimizer, data):
    optimizer.zero_grad()
    reconstruction = model(data)
    reconstruction_loss = F.binary_cross_entropy(reconstruction, data, reduction="none").sum(dim=(1, 2, 3)).mean()
    total_loss = reconstruction_loss + sum(model.losses)
    total_loss.backward()  # expect: GG109
    optimizer.step()
    return {"loss": total_loss.detach(), "reconstruction_loss": reconstruction_loss.item()}


def main():
    torch.manual_seed(0)
    vae = VAE(Encoder(), Decoder())
    optimizer = torch.optim.Adam(vae.parameters(), lr=1e-3)
    mnist_digits = torch.rand(32, 1, 16, 16)
    for epoch in range(2):
        for batch in mnist_digits.split(8):
            logs = train_step(vae, optimizer, batch)
        print(epoch, logs["reconstruction_loss"])


if __name__ == "__main__":
    main()
