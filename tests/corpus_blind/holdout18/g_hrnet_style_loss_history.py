# corpus: Photorealistic style transfer that trains a small HRNet-like style network against frozen VGG features; the per-epoch loss histories store the graph-bearing loss tensors themselves, so every iteration's autograd graph stays alive.
# source: https://github.com/limingcv/Photorealistic-Style-Transfer/issues/7
import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim


class BasicBlock(nn.Module):
    def __init__(self, in_channels, out_channels):
        super(BasicBlock, self).__init__()
        self.relu = nn.ReLU(inplace=True)
        self.identity_block = nn.Sequential(
            nn.Conv2d(in_channels, out_channels // 4, 1), nn.InstanceNorm2d(out_channels // 4), nn.ReLU(),
            nn.Conv2d(out_channels // 4, out_channels, 3, padding=1), nn.InstanceNorm2d(out_channels), nn.ReLU())
        self.shortcut = nn.Sequential(nn.Conv2d(in_channels, out_channels, 1), nn.InstanceNorm2d(out_channels))

    def forward(self, x):
        out = self.identity_block(x)
        out = out + self.shortcut(x)
        return self.relu(out)


class HRNet(nn.Module):
    def __init__(self):
        super(HRNet, self).__init__()
        self.pass1_1 = BasicBlock(3, 16)
        self.pass1_2 = BasicBlock(16, 16)
        self.pass1_3 = nn.Conv2d(16, 3, kernel_size=3, padding=1)

    def forward(self, x):
        return self.pass1_3(self.pass1_2(self.pass1_1(x)))


def make_vgg():
    return nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(inplace=True),
        nn.Conv2d(8, 8, 3, padding=1), nn.ReLU(inplace=True), nn.MaxPool2d(2),
        nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(inplace=True),
        nn.Conv2d(16, 16, 3, padding=1), nn.ReLU(inplace=True))


def get_features(image, model, layers=None):
    if layers is None:
        layers = {'0': 'conv1_1', '2': 'conv1_2', '5': 'conv2_1', '7': 'conv2_2'}
    features = {}
    x = image
    for name, layer in model._modules.items():
        x = layer(x)
        if name in layers:
            features[layers[name]] = x
    return features


def get_grim_matrix(tensor):
    b, c, h, w = tensor.size()
    tensor = tensor.view(b * c, h * w)
    return torch.mm(tensor, tensor.t())


def im_convert(tensor):
    image = tensor.to("cpu").clone().detach()
    image = image.numpy().squeeze(0).transpose(1, 2, 0)
    return image.clip(0, 1)


def main():
    torch.manual_seed(0)
    VGG = make_vgg()
    for parameter in VGG.parameters():
        parameter.requires_grad_(False)
    style_net = HRNet()

    content_image = torch.rand(1, 3, 16, 16)
    style_image = torch.rand(1, 3, 16, 16)
    content_features = get_features(content_image, VGG)
    style_features = get_features(style_image, VGG)
    style_gram_matrixs = {layer: get_grim_matrix(style_features[layer]) for layer in style_features}

    style_weights = {'conv1_1': 0.1, 'conv1_2': 0.2, 'conv2_1': 0.4, 'conv2_2': 0.8}
    content_weight = 150
    style_weight = 1
    show_every = 4
    optimizer = optim.Adam(style_net.parameters(), lr=5e-3)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=200, gamma=0.9)
    steps = 8

    content_loss_epoch = []
    style_loss_epoch = []
    total_loss_epoch = []
    output_image = content_image
    for epoch in range(0, steps + 1):
        target = style_net(content_image)
        target.requires_grad_(True)
        target_features = get_features(target, VGG)
        content_loss = torch.mean((target_features['conv2_2'] - content_features['conv2_2']) ** 2)
        style_loss = 0
        for layer in style_weights:
            target_feature = target_features[layer]
            target_gram_matrix = get_grim_matrix(target_feature)
            style_gram_matrix = style_gram_matrixs[layer]
            layer_style_loss = style_weights[layer] * torch.mean((target_gram_matrix - style_gram_matrix) ** 2)
            b, c, h, w = target_feature.shape
            style_loss += layer_style_loss / (c * h * w)

        total_loss = content_weight * content_loss + style_weight * style_loss
        total_loss_epoch.append(total_loss)  # expect: GG301
        style_loss_epoch.append(style_weight * style_loss)  # also: GG301
        content_loss_epoch.append(content_weight * content_loss)  # also: GG301

        optimizer.zero_grad()
        total_loss.backward()
        optimizer.step()
        scheduler.step()

        if epoch % show_every == 0:
            print("After %d criterions:" % epoch)
            print('Total loss: ', total_loss.item())
            print('Content loss: ', content_loss.item())
            print('Style loss: ', style_loss.item())
            print(im_convert(target).shape)
        output_image = target

    print('final', float(np.mean([t.item() for t in total_loss_epoch])), im_convert(output_image).mean())


if __name__ == "__main__":
    main()
