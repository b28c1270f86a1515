# corpus: saliency / layer-activation visualiser that runs the detector with autograd on (to get input gradients) and converts the feature maps to NumPy for heatmaps with .cpu().numpy() without detaching
# raises: RuntimeError: Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.
# source: https://github.com/XiaMooo/Yolo-Detect-Layer-Visualization/issues/1
import numpy as np
import torch
import torch.nn as nn


class TinyDetector(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.SiLU())
        self.neck = nn.Sequential(nn.Conv2d(8, 8, 3, stride=2, padding=1), nn.SiLU())
        self.head = nn.Conv2d(8, 5, 1)  # objectness + box

    def forward(self, x):
        feats = {}
        x = self.stem(x)
        feats["stem"] = x
        x = self.neck(x)
        feats["neck"] = x
        return self.head(x), feats


def normalise(array):
    array = array - array.min()
    return array / (array.max() + 1e-8)


def plot_multi_heatmap(*arrays, col=2):
    """Stand-in for the seaborn grid: returns the normalised canvases."""
    canvases = []
    for i, array in enumerate(arrays):
        if isinstance(array, torch.Tensor):
            array = array.cpu().numpy()  # expect: GG110
        canvases.append(normalise(np.asarray(array, dtype=np.float32)))
    return canvases


class LayerVisualizer:
    def __init__(self, model):
        self.model = model.eval()

    def saliency(self, img):
        img = img.clone().requires_grad_(True)
        pred, feats = self.model(img)
        pred[:, 0].max().backward()
        return img.grad.abs().amax(dim=1)[0], feats

    def visualise(self, img):
        sal, feats = self.saliency(img)
        maps = [feats["stem"][0].mean(0), feats["neck"][0].mean(0), sal]
        return plot_multi_heatmap(*maps)


def main():
    torch.manual_seed(0)
    vis = LayerVisualizer(TinyDetector())
    canvases = vis.visualise(torch.rand(1, 3, 16, 16))
    print([c.shape for c in canvases])


if __name__ == "__main__":
    main()
