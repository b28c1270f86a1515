# corpus: super-resolution GAN Trainer keeps self.fake from forward(); update_D scores it without detach, update_G then backprops through it again
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/alterzero/DBPN-Pytorch/issues/37
import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self, scale=2, dim=6):
        super().__init__()
        self.up = nn.Sequential(nn.Linear(dim, 24), nn.PReLU(), nn.Linear(24, dim * scale))

    def forward(self, x):
        return self.up(x)


class Discriminator(nn.Module):
    def __init__(self, dim=12):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, 24), nn.LeakyReLU(0.2), nn.Linear(24, 1))

    def forward(self, x):
        return torch.sigmoid(self.net(x))


class GANTrainer:
    def __init__(self, lr=1e-4, w_adv=1e-3):
        self.model = Net()
        self.D = Discriminator()
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=lr, betas=(0.9, 0.999))
        self.D_optimizer = torch.optim.Adam(self.D.parameters(), lr=lr, betas=(0.9, 0.999))
        self.BCE = nn.BCELoss()
        self.w_adv = w_adv
        self.log = {"d": [], "g": []}

    def forward(self, input_lr):
        self.fake = self.model(input_lr)  # also: GG105
        return self.fake

    def update_D(self, target):
        self.D_optimizer.zero_grad()
        real_decision = self.D(target)
        fake_decision = self.D(self.fake)  # expect: GG105
        D_loss = self.BCE(real_decision, torch.ones_like(real_decision)) + \
            self.BCE(fake_decision, torch.zeros_like(fake_decision))
        D_loss.backward()  # also: GG105
        self.D_optimizer.step()
        self.log["d"].append(D_loss.item())

    def update_G(self, target):
        self.optimizer.zero_grad()
        mse_loss = F.mse_loss(self.fake, target)
        D_fake_decision = self.D(self.fake)
        adv_loss = self.BCE(D_fake_decision, torch.ones_like(D_fake_decision))
        G_loss = mse_loss + self.w_adv * adv_loss
        G_loss.backward()  # also: GG105
        self.optimizer.step()
        self.log["g"].append(G_loss.item())

    def train_epoch(self, loader):
        for input_lr, target in loader:
            self.forward(input_lr)
            self.update_D(target)
            self.update_G(target)


if __name__ == "__main__":
    torch.manual_seed(0)
    loader = [(torch.randn(4, 6), torch.randn(4, 12)) for _ in range(3)]
    GANTrainer().train_epoch(loader)
