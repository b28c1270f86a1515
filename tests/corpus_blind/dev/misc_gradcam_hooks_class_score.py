# corpus: Grad-CAM explainer with forward/backward hooks computes maps for the top-k classes from one forward, backward(retain_graph=True) per class score, hooks store detached tensors (correct)
# source: https://github.com/kazuto1011/grad-cam-pytorch/issues/24
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class TinyConvNet(nn.Module):
    def __init__(self, ncls=6):
        super().__init__()
        self.block1 = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU())
        self.block2 = nn.Sequential(nn.Conv2d(8, 12, 3, padding=1), nn.ReLU())
        self.fc = nn.Linear(12, ncls)

    def forward(self, x):
        h = self.block2(self.block1(x))
        return self.fc(h.mean(dim=(2, 3)))


class GradCAM:
    def __init__(self, model, target_layer):
        self.model = model.eval()
        self.fmap = None
        self.grad = None
        target_layer.register_forward_hook(self._save_fmap)
        target_layer.register_full_backward_hook(self._save_grad)

    def _save_fmap(self, module, inputs, output):
        self.fmap = output.detach()

    def _save_grad(self, module, grad_in, grad_out):
        self.grad = grad_out[0].detach()

    def __call__(self, image, topk=2):
        logits = self.model(image)
        ids = logits.topk(topk, dim=1).indices[0]
        cams = {}
        for rank, cls in enumerate(ids.tolist()):
            self.model.zero_grad()
            score = logits[0, cls]
            score.backward(retain_graph=rank < topk - 1)
            weights = self.grad.mean(dim=(2, 3), keepdim=True)
            cam = F.relu((weights * self.fmap).sum(dim=1))
            cams[cls] = (cam / (cam.max() + 1e-8)).squeeze(0)
        return cams


def main():
    model = TinyConvNet()
    explainer = GradCAM(model, model.block2)
    cams = explainer(torch.rand(1, 3, 10, 10), topk=3)
    assert len(cams) == 3
    assert all(c.shape == (10, 10) and c.grad_fn is None for c in cams.values())
    assert explainer.fmap.grad_fn is None and explainer.grad.grad_fn is None
    assert all(p.grad is not None for p in model.parameters())


if __name__ == "__main__":
    main()
