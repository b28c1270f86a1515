# corpus: Grad-CAM for a 3D video classifier with module hooks that store detached activations and gradients, one forward per call and preds.backward(gradient=one_hot) on the non-scalar logits, hooks removed after each call; correct.
# source: https://github.com/shinkyo0513/Towards-Visually-Explaining-Video-Understanding-Networks-With-Perturbation/issues/10
import torch
import torch.nn as nn
import torch.nn.functional as F

# Backward hook
observ_grad_ = None


def backward_hook(m, i_grad, o_grad):
    global observ_grad_
    observ_grad_ = o_grad[0].detach()


# Forward hook
observ_actv_ = None


def forward_hook(m, i, o):
    global observ_actv_
    observ_actv_ = o.detach()


class TinyR3D(nn.Module):
    def __init__(self, num_classes=4):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv3d(3, 8, 3, padding=1), nn.BatchNorm3d(8), nn.ReLU(inplace=True),
            nn.Conv3d(8, 8, 3, padding=1), nn.BatchNorm3d(8), nn.ReLU(inplace=True))
        self.pool = nn.AdaptiveAvgPool3d(1)
        self.fc = nn.Linear(8, num_classes)

    def forward(self, x):
        return self.fc(self.pool(self.features(x)).flatten(1))


def grad_cam(inputs, labels, model, device, layer_name, norm_vis=True):
    model.eval()  # Set model to evaluate mode

    bs, ch, nt, h, w = inputs.shape
    assert ch == 3
    assert labels.shape[0] == bs

    observ_layer = model
    for name in layer_name.split('.'):
        observ_layer = observ_layer._modules[name]

    f_hook = observ_layer.register_forward_hook(forward_hook)
    b_hook = observ_layer.register_full_backward_hook(backward_hook)

    model.zero_grad()
    inputs = inputs.to(device)
    labels = labels.to(device)
    preds = model(inputs)

    one_hot = torch.zeros_like(preds)
    one_hot.scatter_(1, labels.unsqueeze(1), 1.0)
    preds.backward(gradient=one_hot)

    f_hook.remove()
    b_hook.remove()

    weights = observ_grad_.mean(dim=(2, 3, 4), keepdim=True)
    cams = F.relu((weights * observ_actv_).sum(dim=1, keepdim=True))
    cams = F.interpolate(cams, size=(nt, h, w), mode='trilinear', align_corners=False)
    if norm_vis:
        flat = cams.view(bs, -1)
        flat = (flat - flat.min(1, keepdim=True)[0]) / (flat.max(1, keepdim=True)[0] - flat.min(1, keepdim=True)[0] + 1e-8)
        cams = flat.view(bs, 1, nt, h, w)
    return cams.squeeze(1)


def main():
    torch.manual_seed(1)
    device = torch.device('cpu')
    model = TinyR3D()
    loader = [(torch.rand(2, 3, 4, 8, 8), torch.randint(0, 4, (2,))) for _ in range(2)]
    for inputs, labels in loader:
        cams = grad_cam(inputs, labels, model, device, 'features.3')
        print('cams', tuple(cams.shape), 'mean', round(cams.mean().item(), 4))


if __name__ == '__main__':
    main()
