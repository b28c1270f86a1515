# corpus: VanillaGrad/SmoothGrad saliency for an image classifier: every noise sample gets a fresh leaf input and a fresh forward pass before its one_hot.backward(retain_graph=True), the per-sample input grad is read and reset, and numpy only sees .data copies, so the repeated backward calls are correct.
# source: https://github.com/pkmr06/pytorch-smoothgrad/issues/2
import numpy as np
import torch
import torch.nn as nn


class TinyVGG(nn.Module):
    def __init__(self, num_classes=5):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                                      nn.Conv2d(8, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.classifier = nn.Linear(8, num_classes)

    def forward(self, x):
        return self.classifier(self.features(x).flatten(1))


class VanillaGrad(object):
    def __init__(self, pretrained_model, cuda=False):
        self.pretrained_model = pretrained_model
        self.features = pretrained_model.features
        self.cuda = cuda

    def __call__(self, x, index=None):
        output = self.pretrained_model(x)
        if index is None:
            index = np.argmax(output.data.cpu().numpy())
        one_hot = np.zeros((1, output.size()[-1]), dtype=np.float32)
        one_hot[0][index] = 1
        one_hot = torch.from_numpy(one_hot).requires_grad_(True)
        one_hot = torch.sum(one_hot * output)
        one_hot.backward(retain_graph=True)
        grad = x.grad.data.cpu().numpy()
        return grad[0, :, :, :]


class SmoothGrad(VanillaGrad):
    def __init__(self, pretrained_model, cuda=False, stdev_spread=0.15, n_samples=25, magnitude=True):
        super(SmoothGrad, self).__init__(pretrained_model, cuda)
        self.stdev_spread = stdev_spread
        self.n_samples = n_samples
        self.magnitutde = magnitude

    def __call__(self, x, index=None):
        x = x.data.cpu().numpy()
        stdev = self.stdev_spread * (np.max(x) - np.min(x))
        total_gradients = np.zeros_like(x)
        for i in range(self.n_samples):
            noise = np.random.normal(0, stdev, x.shape).astype(np.float32)
            x_plus_noise = x + noise
            x_plus_noise = torch.from_numpy(x_plus_noise).requires_grad_(True)
            output = self.pretrained_model(x_plus_noise)
            if index is None:
                index = np.argmax(output.data.cpu().numpy())
            one_hot = np.zeros((1, output.size()[-1]), dtype=np.float32)
            one_hot[0][index] = 1
            one_hot = torch.from_numpy(one_hot).requires_grad_(True)
            one_hot = torch.sum(one_hot * output)
            if x_plus_noise.grad is not None:
                x_plus_noise.grad.data.zero_()
            one_hot.backward(retain_graph=True)
            grad = x_plus_noise.grad.data.cpu().numpy()
            if self.magnitutde:
                total_gradients += (grad * grad)
            else:
                total_gradients += grad
        avg_gradients = total_gradients[0, :, :, :] / self.n_samples
        return avg_gradients


def main():
    torch.manual_seed(0)
    np.random.seed(0)
    model = TinyVGG()
    model.eval()
    image = torch.rand(1, 3, 16, 16, requires_grad=True)
    vanilla_grad = VanillaGrad(pretrained_model=model)(image)
    smooth_grad = SmoothGrad(pretrained_model=model, n_samples=8, magnitude=True)(image)
    print("vanilla saliency", vanilla_grad.shape, float(np.abs(vanilla_grad).sum()))
    print("smooth saliency", smooth_grad.shape, float(smooth_grad.sum()))


if __name__ == "__main__":
    main()
