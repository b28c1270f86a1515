import torch.nn as nn


class AdversarialLoss(nn.Module):
    """Hinge adversarial loss, as in the EdgeConnect/BPPNet code base."""

    def __init__(self, type="hinge"):
        super().__init__()
        self.type = type
        self.criterion = nn.ReLU()

    def __call__(self, outputs, is_real, is_disc=None):
        if is_disc:
            if is_real:
                outputs = -outputs
            return self.criterion(1 + outputs).mean()
        return (-outputs).mean()


class ContentLoss(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = nn.L1Loss()

    def forward(self, x, y):
        # gradient-domain content term (cheap stand-in for the VGG content loss)
        dx = x[..., 1:] - x[..., :-1]
        dy = y[..., 1:] - y[..., :-1]
        return self.l1(dx, dy)
