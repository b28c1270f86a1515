# corpus: Gatys-style neural style transfer optimising the image with LBFGS; the post-processing that turns the optimised image into an array calls .numpy() on a tensor that still requires grad.
# raises: RuntimeError: Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.
# source: https://github.com/pytorch/pytorch/issues/44023
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import optim


class VGG(nn.Module):
    def __init__(self):
        super(VGG, self).__init__()
        self.conv1_1 = nn.Conv2d(3, 8, kernel_size=3, padding=1)
        self.conv2_1 = nn.Conv2d(8, 16, kernel_size=3, padding=1)
        self.conv3_1 = nn.Conv2d(16, 16, kernel_size=3, padding=1)
        self.conv4_1 = nn.Conv2d(16, 32, kernel_size=3, padding=1)
        self.pool = nn.AvgPool2d(kernel_size=2, stride=2)

    def forward(self, x, out_keys):
        out = {}
        out['r11'] = F.relu(self.conv1_1(x))
        out['r21'] = F.relu(self.conv2_1(self.pool(out['r11'])))
        out['r31'] = F.relu(self.conv3_1(self.pool(out['r21'])))
        out['r41'] = F.relu(self.conv4_1(self.pool(out['r31'])))
        return [out[key] for key in out_keys]


class GramMatrix(nn.Module):
    def forward(self, input):
        b, c, h, w = input.size()
        F_ = input.view(b, c, h * w)
        G = torch.bmm(F_, F_.transpose(1, 2))
        G.div_(h * w)
        return G


class GramMSELoss(nn.Module):
    def forward(self, input, target):
        return nn.MSELoss()(GramMatrix()(input), target)


def postp(tensor):
    mean = torch.tensor([0.485, 0.456, 0.406]).view(3, 1, 1)
    std = torch.tensor([0.229, 0.224, 0.225]).view(3, 1, 1)
    t = tensor * std + mean
    t = t.clamp(0, 1)
    img = t.numpy().transpose(1, 2, 0)  # expect: GG110
    return (img * 255).astype(np.uint8)


def main():
    torch.manual_seed(0)
    vgg = VGG()
    for param in vgg.parameters():
        param.requires_grad = False

    style_image = torch.randn(1, 3, 32, 32)
    content_image = torch.randn(1, 3, 32, 32)
    opt_img = content_image.clone().requires_grad_(True)

    style_layers = ['r11', 'r21', 'r31', 'r41']
    content_layers = ['r41']
    loss_layers = style_layers + content_layers
    loss_fns = [GramMSELoss()] * len(style_layers) + [nn.MSELoss()] * len(content_layers)
    style_weights = [1e3 / n ** 2 for n in [8, 16, 16, 32]]
    content_weights = [1e0]
    weights = style_weights + content_weights

    style_targets = [GramMatrix()(A).detach() for A in vgg(style_image, style_layers)]
    content_targets = [A.detach() for A in vgg(content_image, content_layers)]
    targets = style_targets + content_targets

    max_iter = 4
    show_iter = 2
    optimizer = optim.LBFGS([opt_img], max_iter=2)
    n_iter = [0]

    while n_iter[0] <= max_iter:
        def closure():
            optimizer.zero_grad()
            out = vgg(opt_img, loss_layers)
            layer_losses = [weights[a] * loss_fns[a](A, targets[a]) for a, A in enumerate(out)]
            loss = sum(layer_losses)
            loss.backward()
            n_iter[0] += 1
            if n_iter[0] % show_iter == (show_iter - 1):
                print('Iteration: %d, loss: %f' % (n_iter[0] + 1, loss.item()))
            return loss.item()
        optimizer.step(closure)

    out_img = postp(opt_img[0].cpu().squeeze())
    print(out_img.shape, out_img.dtype)


if __name__ == "__main__":
    main()
