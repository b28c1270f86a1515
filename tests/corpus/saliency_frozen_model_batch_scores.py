# corpus: saliency for a batch through a frozen classifier; backward on the per-image top scores (a vector)
# raises: RuntimeError: grad can be implicitly created only for scalar outputs
import torch
import torch.nn as nn

torch.manual_seed(0)
batch_size = 8
hidden = 16


class Classifier(nn.Module):
    def __init__(self, n_classes=10):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(1, hidden, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.head = nn.Linear(hidden, n_classes)

    def forward(self, x):
        return self.head(self.body(x).flatten(1))


def saliency(model, images):
    for p in model.parameters():
        p.requires_grad_(False)
    images = images.clone().requires_grad_(True)
    scores = model(images).max(dim=1).values
    scores.backward()  # expect: GG109
    return images.grad.abs().amax(dim=1)


maps = saliency(Classifier(), torch.rand(batch_size, 1, 12, 12))
print(maps.shape)
