# corpus: feature visualisation by activation maximisation with a hand-written gradient-ascent step on the input image; the update `img += lr * img.grad` runs outside no_grad on a leaf that requires grad
# raises: RuntimeError: a leaf Variable that requires grad is being used in an in-place operation.
# source: https://github.com/BaiTheBest/SparseLLM/issues/13
import torch
import torch.nn as nn


class TinyConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(),
            nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(),
        )
        self.head = nn.Linear(16, 10)

    def forward(self, x):
        f = self.features(x)
        return self.head(f.mean(dim=(2, 3))), f


class ActivationMaximizer:
    def __init__(self, model, channel, lr=0.1, l2=1e-3):
        self.model = model.eval()
        for p in self.model.parameters():
            p.requires_grad_(False)
        self.channel = channel
        self.lr = lr
        self.l2 = l2

    def objective(self, img):
        _, fmap = self.model(img)
        return fmap[:, self.channel].mean() - self.l2 * img.pow(2).sum()

    def run(self, steps=10, size=16):
        img = (0.01 * torch.randn(1, 3, size, size)).requires_grad_(True)
        history = []
        for _ in range(steps):
            if img.grad is not None:
                img.grad.zero_()
            score = self.objective(img)
            score.backward()
            img += self.lr * img.grad / (img.grad.norm() + 1e-8)  # expect: GG108
            history.append(score.item())
        return img.detach(), history


def main():
    torch.manual_seed(0)
    vis = ActivationMaximizer(TinyConvNet(), channel=3)
    img, history = vis.run()
    print("final activation", history[-1], "image norm", img.norm().item())


if __name__ == "__main__":
    main()
