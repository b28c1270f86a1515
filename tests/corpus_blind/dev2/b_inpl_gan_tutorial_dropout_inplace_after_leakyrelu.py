# corpus: MLP GAN tutorial whose discriminator blocks chain LeakyReLU(inplace=True) and Dropout(inplace=True); dropout overwrites the activation output that LeakyReLU's backward needs, so D_loss.backward() fails
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/dreamgonfly/GAN-tutorial/issues/1
import torch
import torch.nn as nn
from torch.optim import Adam


class Generator(nn.Module):
    def __init__(self, z_dim=16, img_dim=36):
        super(Generator, self).__init__()
        self.main = nn.Sequential(
            nn.Linear(in_features=z_dim, out_features=32),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Linear(in_features=32, out_features=64),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Linear(in_features=64, out_features=img_dim),
            nn.Tanh())

    def forward(self, inputs):
        return self.main(inputs).view(-1, 1, 6, 6)


def disc_block(in_features, out_features):
    return [nn.Linear(in_features=in_features, out_features=out_features),
            nn.LeakyReLU(0.2, inplace=True),  # also: GG107
            nn.Dropout(inplace=True)]  # expect: GG107


class Discriminator(nn.Module):
    def __init__(self, img_dim=36):
        super(Discriminator, self).__init__()
        self.main = nn.Sequential(
            *disc_block(img_dim, 64),
            *disc_block(64, 32),
            nn.Linear(in_features=32, out_features=1),
            nn.Sigmoid())

    def forward(self, inputs):
        inputs = inputs.view(-1, 36)
        return self.main(inputs)


def train(G, D, dataloader, epochs=1, z_dim=16):
    criterion = nn.BCELoss()
    G_optimizer = Adam(G.parameters(), lr=0.0002, betas=(0.5, 0.999))
    D_optimizer = Adam(D.parameters(), lr=0.0002, betas=(0.5, 0.999))
    train_hist = {'D_losses': [], 'G_losses': []}
    for epoch in range(epochs):
        D_losses, G_losses = [], []
        for real_data in dataloader:
            batch_size = real_data.size(0)
            target_real = torch.ones(batch_size, 1)
            target_fake = torch.zeros(batch_size, 1)

            D_result_from_real = D(real_data)
            D_loss_real = criterion(D_result_from_real, target_real)
            z = torch.randn((batch_size, z_dim))
            fake_data = G(z)
            D_result_from_fake = D(fake_data)
            D_loss_fake = criterion(D_result_from_fake, target_fake)
            D_loss = D_loss_real + D_loss_fake
            D.zero_grad()
            D_loss.backward()  # also: GG107
            D_optimizer.step()
            D_losses.append(D_loss.item())

            z = torch.randn((batch_size, z_dim))
            fake_data = G(z)
            D_result_from_fake = D(fake_data)
            G_loss = criterion(D_result_from_fake, target_real)
            G.zero_grad()
            G_loss.backward()
            G_optimizer.step()
            G_losses.append(G_loss.item())
        train_hist['D_losses'].append(sum(D_losses) / len(D_losses))
        train_hist['G_losses'].append(sum(G_losses) / len(G_losses))
        print("Epoch: {:<3d} D Loss: {:<.6} G Loss: {:<.6}".format(
            epoch, train_hist['D_losses'][-1], train_hist['G_losses'][-1]))
    return train_hist


if __name__ == "__main__":
    torch.manual_seed(0)
    dataloader = [torch.rand(8, 1, 6, 6) * 2 - 1 for _ in range(3)]
    train(Generator(), Discriminator(), dataloader)
