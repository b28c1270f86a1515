# corpus: vanilla saliency maps for a batch of images call backward() on the per-image max class score vector instead of a scalar
# raises: RuntimeError: grad can be implicitly created only for scalar outputs
# source: https://github.com/sunnynevarekar/pytorch-saliency-maps/issues/1
import torch
import torch.nn as nn

torch.manual_seed(0)


class SmallCNN(nn.Module):
    def __init__(self, ncls=5):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 6, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(2))
        self.classifier = nn.Linear(6 * 4, ncls)

    def forward(self, x):
        return self.classifier(self.features(x).flatten(1))


class SaliencyMapper:
    def __init__(self, model):
        self.model = model.eval()
        for p in self.model.parameters():
            p.requires_grad_(False)

    def __call__(self, images):
        inputs = images.clone().requires_grad_(True)
        preds = self.model(inputs)
        score, indices = torch.max(preds, 1)
        score.backward()  # expect: GG109
        slc, _ = torch.max(torch.abs(inputs.grad), dim=1)
        slc = (slc - slc.amin(dim=(1, 2), keepdim=True)) / (slc.amax(dim=(1, 2), keepdim=True) - slc.amin(dim=(1, 2), keepdim=True))
        return slc, indices


def main():
    mapper = SaliencyMapper(SmallCNN())
    images = torch.rand(4, 3, 12, 12)
    maps, classes = mapper(images)
    print(maps.shape, classes.tolist())


if __name__ == "__main__":
    main()
