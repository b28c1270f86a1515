# corpus: DeblurGANv2-style trainer: the D loss goes through the undetached generator output, so it is backpropagated with retain_graph=True, D steps, G's grads are cleared, and the G adversarial loss re-runs D on the same output after the step (correct)
# source: https://github.com/VITA-Group/DeblurGANv2/issues/19
import argparse

import torch
import torch.nn as nn


class FPNGenerator(nn.Module):
    def __init__(self, ch=8):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(3, ch, 3, padding=1), nn.ReLU(), nn.Conv2d(ch, 3, 3, padding=1))

    def forward(self, x):
        return torch.clamp(x + torch.tanh(self.body(x)), -1, 1)


class PatchD(nn.Module):
    def __init__(self, ch=8):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(3, ch, 4, 2, 1), nn.LeakyReLU(0.2), nn.Conv2d(ch, 1, 3, padding=1))

    def forward(self, x):
        return self.net(x)


class RaGANLoss:
    def __init__(self, netD):
        self.net = netD
        self.criterion = nn.BCEWithLogitsLoss()

    def loss_d(self, pred, gt):
        d_fake = self.net(pred)
        d_real = self.net(gt)
        ones, zeros = torch.ones_like(d_real), torch.zeros_like(d_real)
        return (self.criterion(d_real - d_fake.mean(), ones) + self.criterion(d_fake - d_real.mean(), zeros)) / 2

    def loss_g(self, pred, gt):
        d_fake = self.net(pred)
        d_real = self.net(gt)
        ones, zeros = torch.ones_like(d_real), torch.zeros_like(d_real)
        return (self.criterion(d_real - d_fake.mean(), zeros) + self.criterion(d_fake - d_real.mean(), ones)) / 2


class Trainer:
    def __init__(self, config):
        self.config = config
        self.netG = FPNGenerator()
        self.netD = PatchD()
        self.adv_trainer = RaGANLoss(self.netD)
        self.criterionG = nn.L1Loss()
        self.optimizer_G = torch.optim.Adam(self.netG.parameters(), lr=config.lr)
        self.optimizer_D = torch.optim.Adam(self.netD.parameters(), lr=config.lr)
        self.adv_lambda = config.adv_lambda

    def _update_d(self, outputs, targets):
        self.optimizer_D.zero_grad()
        loss_D = self.adv_lambda * self.adv_trainer.loss_d(outputs, targets)
        loss_D.backward(retain_graph=True)
        self.optimizer_D.step()
        return loss_D.item()

    def _run_epoch(self, epoch, loader):
        for inputs, targets in loader:
            outputs = self.netG(inputs)
            loss_D = self._update_d(outputs, targets)
            self.optimizer_G.zero_grad()
            loss_content = self.criterionG(outputs, targets)
            loss_adv = self.adv_trainer.loss_g(outputs, targets)
            loss_G = loss_content + self.adv_lambda * loss_adv
            loss_G.backward()
            self.optimizer_G.step()
        print(f"epoch {epoch} loss_G {loss_G.item():.4f} loss_D {loss_D:.4f}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=1e-4)
    parser.add_argument("--adv_lambda", type=float, default=0.001)
    config = parser.parse_args([])
    torch.manual_seed(0)
    trainer = Trainer(config)
    loader = [(torch.rand(2, 3, 16, 16) * 2 - 1, torch.rand(2, 3, 16, 16) * 2 - 1) for _ in range(3)]
    for epoch in range(2):
        trainer._run_epoch(epoch, loader)


if __name__ == "__main__":
    main()
