# corpus: Grad-CAM on a siamese change-detection network that reduces the chosen class's change-probability map to a scalar (mean over pixels) before calling backward.
# source: https://github.com/Bobholamovic/CDLab/issues/42
import torch
import torch.nn as nn
import torch.nn.functional as F


class SiamConvCD(nn.Module):
    """Tiny siamese change-detection net: shared encoder, difference, per-pixel 2-class logits."""

    def __init__(self, in_ch=3, width=8):
        super().__init__()
        self.encoder = nn.Sequential(nn.Conv2d(in_ch, width, 3, padding=1), nn.ReLU(),
                                     nn.Conv2d(width, width, 3, padding=1), nn.ReLU())
        self.head = nn.Conv2d(width, 2, 1)

    def forward(self, t1, t2):
        f1, f2 = self.encoder(t1), self.encoder(t2)
        return self.head(torch.abs(f1 - f2))


class GradCAM:
    def __init__(self, model, target_layer):
        self.model = model
        self.activations = None
        self.gradients = None
        target_layer.register_forward_hook(self._save_activation)
        target_layer.register_full_backward_hook(self._save_gradient)

    def _save_activation(self, module, inp, out):
        self.activations = out

    def _save_gradient(self, module, grad_in, grad_out):
        self.gradients = grad_out[0]

    def __call__(self, t1, t2, class_idx=1):
        self.model.zero_grad()
        logits = self.model(t1, t2)
        score = F.softmax(logits, dim=1)[:, class_idx].mean()
        score.backward()
        weights = self.gradients.mean(dim=(2, 3), keepdim=True)
        cam = F.relu((weights * self.activations).sum(1))
        return cam / (cam.max() + 1e-8)


def main():
    torch.manual_seed(0)
    model = SiamConvCD().eval()
    cam = GradCAM(model, model.encoder[2])
    t1, t2 = torch.rand(1, 3, 16, 16), torch.rand(1, 3, 16, 16)
    heat = cam(t1, t2)
    ok = all(p.grad is not None for p in model.parameters()) and cam.gradients is not None
    assert ok
    print("cam shape", tuple(heat.shape), "grads reached params:", ok)


if __name__ == "__main__":
    main()
