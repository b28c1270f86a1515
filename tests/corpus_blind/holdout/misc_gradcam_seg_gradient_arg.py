# corpus: Grad-CAM for a segmentation net backpropagates the non-scalar logit map with an explicit gradient= mask selecting the class pixels (correct)
# source: https://github.com/kazuto1011/grad-cam-pytorch/issues/19
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class TinyUNet(nn.Module):
    def __init__(self, ncls=3):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU())
        self.down = nn.Sequential(nn.Conv2d(8, 16, 3, stride=2, padding=1), nn.ReLU())
        self.up = nn.ConvTranspose2d(16, 8, 2, stride=2)
        self.head = nn.Conv2d(16, ncls, 1)

    def forward(self, x):
        e = self.enc(x)
        u = self.up(self.down(e))
        return self.head(torch.cat([e, u], dim=1))


class _BaseWrapper:
    def __init__(self, model):
        self.model = model
        self.logits = None

    def forward(self, image):
        self.model.zero_grad()
        self.logits = self.model(image)
        return self.logits

    def backward(self, class_idx):
        pred = self.logits.argmax(dim=1, keepdim=True)
        mask = torch.zeros_like(self.logits)
        mask.scatter_(1, pred, 1.0)
        mask[:, [c for c in range(self.logits.size(1)) if c != class_idx]] = 0.0
        self.logits.backward(gradient=mask, retain_graph=True)


class SegGradCAM(_BaseWrapper):
    def __init__(self, model, layer):
        super().__init__(model)
        self.acts = {}
        self.grads = {}
        layer.register_forward_hook(lambda m, i, o: self.acts.__setitem__("a", o.detach()))
        layer.register_full_backward_hook(lambda m, gi, go: self.grads.__setitem__("g", go[0].detach()))

    def generate(self):
        weights = F.adaptive_avg_pool2d(self.grads["g"], 1)
        cam = F.relu((weights * self.acts["a"]).sum(dim=1, keepdim=True))
        return F.interpolate(cam, size=self.logits.shape[-2:], mode="bilinear", align_corners=False)


def main():
    model = TinyUNet()
    gcam = SegGradCAM(model, model.down)
    gcam.forward(torch.rand(2, 1, 16, 16))
    maps = []
    for cls in range(3):
        model.zero_grad()
        gcam.backward(cls)
        maps.append(gcam.generate())
    assert all(m.shape == (2, 1, 16, 16) and m.grad_fn is None for m in maps)
    assert all(p.grad is not None for p in model.down.parameters())


if __name__ == "__main__":
    main()
