# corpus: Gatys style transfer optimising a noise image; before backward the loop dumps the current image with save_image(noise.cpu().detach()), and the image writer normalises the grid in place (mul_/add_/clamp_) on a tensor that shares storage and version counter with noise, which the first conv saved for backward
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/halahup/NeuralStyleTransfer/issues/1
import random

import numpy as np
import torch
import torch.nn as nn
from torch import optim

torch.manual_seed(0)
random.seed(0)
np.random.seed(0)


# ----------------------------------------------------------------- vgg.py
class VGG(nn.Module):
    def __init__(self):
        super(VGG, self).__init__()
        # stands in for models.vgg19(pretrained=True).features
        self.vgg = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(inplace=True),
            nn.Conv2d(8, 8, 3, padding=1), nn.ReLU(inplace=True),
            nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(inplace=True),
            nn.Conv2d(16, 16, 3, padding=1), nn.ReLU(inplace=True),
        )

    def get_content_activations(self, x):
        return self.vgg[:8](x)

    def get_style_activations(self, x):
        return [self.vgg[:2](x)] + [self.vgg[:4](x)] + [self.vgg[:7](x)]

    def forward(self, x):
        return self.vgg(x)


# -------------------------------------------------------------- losses.py
def gram(tensor):
    return torch.mm(tensor, tensor.t())


def gram_loss(noise_img_gram, style_img_gram, N, M):
    return torch.sum(torch.pow(noise_img_gram - style_img_gram, 2)).div(
        float(np.power(N * M * 2, 2, dtype=np.float64)))


def total_variation_loss(image):
    loss = torch.mean(torch.abs(image[:, :, :, :-1] - image[:, :, :, 1:])) + \
        torch.mean(torch.abs(image[:, :, :-1, :] - image[:, :, 1:, :]))
    return loss


def content_loss(noise, image):
    return 1 / 2. * torch.sum(torch.pow(noise - image, 2))


# ------------------------------------- image writer (torchvision 0.3 style)
def make_grid(tensor):
    if tensor.dim() == 4 and tensor.size(0) == 1:
        return tensor.squeeze(0)
    return torch.cat(list(tensor), dim=2)


def save_image(tensor, filename, saved):
    grid = make_grid(tensor)
    ndarr = grid.mul_(255).add_(0.5).clamp_(0, 255).permute(1, 2, 0).to(torch.uint8).numpy()  # expect: GG107
    saved[filename] = ndarr  # the real writer hands ndarr to PIL here


# ------------------------------------------------------------------ nst.py
def main(img_dim, num_iter, style_weight, content_weight, variation_weight,
         print_every, save_every):
    content_image = torch.rand(1, 3, img_dim, img_dim)
    style_image = torch.rand(1, 3, img_dim, img_dim)

    vgg = VGG().eval()
    for name, child in vgg.vgg.named_children():
        if isinstance(child, nn.MaxPool2d):
            vgg.vgg[int(name)] = nn.AvgPool2d(kernel_size=2, stride=2)
    for param in vgg.parameters():
        param.requires_grad = False

    content_activations = vgg.get_content_activations(content_image).detach()
    content_activations = content_activations.view(16, -1)

    style_activations = vgg.get_style_activations(style_image)
    for i in range(len(style_activations)):
        style_activations[i] = style_activations[i].squeeze().view(
            style_activations[i].shape[1], -1).detach()
    style_grams = [gram(style_activations[i]) for i in range(len(style_activations))]

    noise = torch.randn(1, 3, img_dim, img_dim, requires_grad=True)
    adam = optim.Adam(params=[noise], lr=0.01, betas=(0.9, 0.999))
    saved = {}

    for iteration in range(num_iter):
        adam.zero_grad()

        noise_content_activations = vgg.get_content_activations(noise).view(16, -1)
        content_loss_ = content_loss(noise_content_activations, content_activations)

        noise_style_activations = vgg.get_style_activations(noise)
        for i in range(len(noise_style_activations)):
            noise_style_activations[i] = noise_style_activations[i].squeeze().view(
                noise_style_activations[i].shape[1], -1)
        noise_grams = [gram(noise_style_activations[i]) for i in range(len(noise_style_activations))]

        style_loss = 0
        for i in range(len(style_activations)):
            N, M = noise_style_activations[i].shape[0], noise_style_activations[i].shape[1]
            style_loss += (gram_loss(noise_grams[i], style_grams[i], N, M) / 3.)

        variation_loss = total_variation_loss(noise)
        total_loss = content_weight * content_loss_ + style_weight * style_loss + \
            variation_weight * variation_loss

        if iteration % print_every == 0:
            print("Iteration: {}, Content Loss: {:.3f}, Style Loss: {:.3f}, Var Loss: {:.3f}".format(
                iteration, content_weight * content_loss_.item(),
                style_weight * style_loss.item(), variation_weight * variation_loss.item()))

        if iteration % save_every == 0:
            save_image(noise.cpu().detach(), './generated/iter_{}.png'.format(iteration), saved)  # also: GG107

        total_loss.backward()  # also: GG107
        adam.step()


if __name__ == "__main__":
    main(img_dim=16, num_iter=5, style_weight=10e6, content_weight=10e-4,
         variation_weight=10e3, print_every=1, save_every=2)
