import torch
import torch.nn as nn
import torch.nn.functional as F


class PatchAdversarialLoss(nn.Module):
    def __init__(self, criterion="least_squares"):
        super().__init__()
        self.criterion = criterion

    def forward(self, logits, target_is_real, for_discriminator):
        if not for_discriminator and not target_is_real:
            target_is_real = True
        target = torch.ones_like(logits) if target_is_real else torch.zeros_like(logits)
        return F.mse_loss(logits, target)


class PerceptualLoss(nn.Module):
    """Stand-in for MONAI's AlexNet perceptual loss: frozen random conv features."""

    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(1, 8, 3, 1, 1), nn.ReLU(), nn.Conv2d(8, 8, 3, 2, 1))
        for p in self.net.parameters():
            p.requires_grad_(False)

    def forward(self, x, y):
        return F.mse_loss(self.net(x), self.net(y))
