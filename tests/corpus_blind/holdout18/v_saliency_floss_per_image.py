# corpus: A salient-object-detection trainer uses an F-measure loss module that returns one loss per image, and calls backward() on that (N,) tensor directly.
# raises: RuntimeError: grad can be implicitly created only for scalar outputs
# source: https://github.com/zeakey/iccv2019-fmeasure/issues/1
import torch
import torch.nn as nn
import torch.nn.functional as F


class FLoss(nn.Module):
    def __init__(self, beta=0.3, log_like=False):
        super(FLoss, self).__init__()
        self.beta = beta
        self.log_like = log_like

    def forward(self, prediction, target):
        EPS = 1e-10
        N = prediction.size(0)
        TP = (prediction * target).view(N, -1).sum(dim=1)
        H = self.beta * target.view(N, -1).sum(dim=1) + prediction.view(N, -1).sum(dim=1)
        fmeasure = (1 + self.beta) * TP / (H + EPS)
        if self.log_like:
            floss = -torch.log(fmeasure)
        else:
            floss = 1 - fmeasure
        return floss


class SaliencyNet(nn.Module):
    """A tiny encoder/decoder with one side output, DSS style."""

    def __init__(self):
        super(SaliencyNet, self).__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1, stride=2)
        self.side1 = nn.Conv2d(8, 1, 1)
        self.side2 = nn.Conv2d(16, 1, 1)
        self.fuse = nn.Conv2d(2, 1, 1)

    def forward(self, x):
        h1 = F.relu(self.conv1(x))
        h2 = F.relu(self.conv2(h1))
        s1 = self.side1(h1)
        s2 = F.interpolate(self.side2(h2), size=x.shape[2:], mode="bilinear", align_corners=False)
        fused = self.fuse(torch.cat([s1, s2], dim=1))
        return torch.sigmoid(fused)


def make_batch(batch_size, size=32):
    images = torch.rand(batch_size, 3, size, size)
    masks = (torch.rand(batch_size, 1, size, size) > 0.5).float()
    return images, masks


def train(model, criterion, optimizer, iters=3, batch_size=4):
    model.train()
    history = []
    for it in range(iters):
        images, masks = make_batch(batch_size)
        optimizer.zero_grad()
        prediction = model(images)
        loss = criterion(prediction, masks)
        loss.backward()  # expect: GG109
        optimizer.step()
        history.append(loss.mean().item())
        print("iter %d  floss %.4f" % (it, history[-1]))
    return history


def main():
    torch.manual_seed(0)
    model = SaliencyNet()
    criterion = FLoss(beta=0.8)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-2, momentum=0.9)
    train(model, criterion, optimizer)


if __name__ == "__main__":
    main()
