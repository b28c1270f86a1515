# corpus: torch-cam style GradCAM extractor fed with class scores from a helper that runs the model under torch.no_grad(), so the CAM's backward on the selected score has no graph.
# raises: RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
# source: https://github.com/frgfm/torch-cam/issues/26
import torch
import torch.nn as nn
import torch.nn.functional as F


class TinyResNet(nn.Module):
    def __init__(self, num_classes=5):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU())
        self.layer4 = nn.Sequential(nn.Conv2d(8, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU())
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(16, num_classes)

    def forward(self, x):
        x = self.layer4(self.stem(x))
        return self.fc(torch.flatten(self.pool(x), 1))


class _CAM:
    """Implements a class activation map extractor on one named layer."""

    def __init__(self, model, target_layer):
        self.model = model
        self.submodule_dict = dict(model.named_modules())
        if target_layer not in self.submodule_dict:
            raise ValueError(f"Unable to find submodule {target_layer} in the model")
        self.target_layer = target_layer
        self.hook_a = None
        self.hook_g = None
        self.hook_handles = []
        self.hook_handles.append(self.submodule_dict[target_layer].register_forward_hook(self._hook_a))

    def _hook_a(self, module, input, output):
        self.hook_a = output.data
        if output.requires_grad:
            output.register_hook(self._hook_g)

    def _hook_g(self, grad):
        self.hook_g = grad.data

    def clear_hooks(self):
        for handle in self.hook_handles:
            handle.remove()

    @staticmethod
    def _normalize(cams):
        cams = cams - cams.flatten(1).min(-1).values[:, None, None]
        return cams / (cams.flatten(1).max(-1).values[:, None, None] + 1e-8)

    def __call__(self, class_idx, scores=None, normalized=True):
        weights = self._get_weights(class_idx, scores)
        batch_cams = (weights[..., None, None] * self.hook_a).sum(1)
        batch_cams = F.relu(batch_cams)
        if normalized:
            batch_cams = self._normalize(batch_cams)
        return batch_cams


class _GradCAM(_CAM):
    def _backprop(self, scores, class_idx):
        if self.hook_a is None:
            raise TypeError("Inputs need to be forwarded in the model for the conv features to be hooked")
        loss = scores[:, class_idx].sum()
        self.model.zero_grad()
        loss.backward(retain_graph=True)  # also: GG106


class GradCAMpp(_GradCAM):
    def _get_weights(self, class_idx, scores):
        self._backprop(scores, class_idx)
        grad_2 = self.hook_g.pow(2)
        grad_3 = grad_2 * self.hook_g
        denom = 2 * grad_2 + (grad_3 * self.hook_a).sum(dim=(2, 3), keepdim=True)
        nan_mask = grad_2 > 0
        alpha = grad_2
        alpha[nan_mask].div_(denom[nan_mask])
        return alpha.squeeze_(0).mul_(torch.relu(self.hook_g.squeeze(0))).sum(dim=(-2, -1))


def _forward(model, input_tensor):
    with torch.no_grad():  # expect: GG106
        out = model(input_tensor)
    return out


def main():
    torch.manual_seed(0)
    model = TinyResNet().eval()
    cam = GradCAMpp(model, 'layer4')
    img_tensor = torch.rand(3, 16, 16)
    img_tensor = (img_tensor - 0.45) / 0.225
    scores = _forward(model, img_tensor.unsqueeze(0))
    class_idx = scores.squeeze(0).argmax().item()
    activation_map = cam(class_idx=class_idx, scores=scores)
    print("CAM shape", tuple(activation_map.shape), "max", activation_map.max().item())
    cam.clear_hooks()


if __name__ == "__main__":
    main()
