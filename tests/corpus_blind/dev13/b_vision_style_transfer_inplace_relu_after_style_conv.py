# corpus: neural-style-pt: the loss network is rebuilt with a StyleLoss module right after a conv layer chosen as a style layer (-style_layers conv1_1); the Caffe VGG keeps nn.ReLU(True), which overwrites the conv output that the Gram matrix saved, so feval's loss.backward() fails
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/ProGamerGov/neural-style-pt/issues/44
import copy

import torch
import torch.nn as nn
import torch.optim as optim


class VGG_SOD(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1),
            nn.ReLU(True),  # expect: GG107
            nn.Conv2d(8, 8, 3, padding=1),
            nn.ReLU(True),
            nn.MaxPool2d(2, 2),
            nn.Conv2d(8, 16, 3, padding=1),
            nn.ReLU(True),
        )


def loadCaffemodel():
    cnn = VGG_SOD()
    layerList = {"C": ["conv1_1", "conv1_2", "conv2_1"], "R": ["relu1_1", "relu1_2", "relu2_1"]}
    return cnn.features, layerList


class ContentLoss(nn.Module):
    def __init__(self, strength):
        super().__init__()
        self.strength = strength
        self.crit = nn.MSELoss()
        self.mode = "None"

    def forward(self, input):
        if self.mode == "loss":
            self.loss = self.crit(input, self.target) * self.strength
        elif self.mode == "capture":
            self.target = input.detach()
        return input


class GramMatrix(nn.Module):
    def forward(self, input):
        B, C, H, W = input.size()
        x_flat = input.view(C, H * W)
        return torch.mm(x_flat, x_flat.t())


class StyleLoss(nn.Module):
    def __init__(self, strength):
        super().__init__()
        self.target = torch.Tensor()
        self.strength = strength
        self.gram = GramMatrix()
        self.crit = nn.MSELoss()
        self.mode = "None"

    def forward(self, input):
        self.G = self.gram(input)
        self.G = self.G.div(input.nelement())
        if self.mode == "capture":
            self.target = self.G.detach()
        elif self.mode == "loss":
            self.loss = self.strength * self.crit(self.G, self.target)
        return input


def build_net(cnn, layerList, content_layers, style_layers):
    cnn = copy.deepcopy(cnn)
    content_losses, style_losses = [], []
    net = nn.Sequential()
    c, r = 0, 0
    for layer in list(cnn):
        if isinstance(layer, nn.Conv2d):
            net.add_module(str(len(net)), layer)
            if layerList["C"][c] in content_layers:
                loss_module = ContentLoss(5e0)
                net.add_module(str(len(net)), loss_module)
                content_losses.append(loss_module)
            if layerList["C"][c] in style_layers:
                loss_module = StyleLoss(1e2)
                net.add_module(str(len(net)), loss_module)
                style_losses.append(loss_module)
            c += 1
        if isinstance(layer, nn.ReLU):
            net.add_module(str(len(net)), layer)
            if layerList["R"][r] in content_layers:
                loss_module = ContentLoss(5e0)
                net.add_module(str(len(net)), loss_module)
                content_losses.append(loss_module)
            r += 1
        if isinstance(layer, nn.MaxPool2d):
            net.add_module(str(len(net)), layer)
    return net, content_losses, style_losses


def main():
    torch.manual_seed(0)
    content_image = torch.rand(1, 3, 16, 16)
    style_image = torch.rand(1, 3, 16, 16)
    cnn, layerList = loadCaffemodel()
    net, content_losses, style_losses = build_net(cnn, layerList, ["relu2_1"], ["conv1_1"])

    for i in content_losses:
        i.mode = "capture"
    net(content_image)
    for i in content_losses:
        i.mode = "None"
    for j in style_losses:
        j.mode = "capture"
    net(style_image)
    for mod in content_losses + style_losses:
        mod.mode = "loss"
    for param in net.parameters():
        param.requires_grad = False

    img = nn.Parameter(content_image.clone())
    optimizer = optim.Adam([img], lr=1e-1)
    num_calls = [0]

    def feval():
        num_calls[0] += 1
        optimizer.zero_grad()
        net(img)
        loss = 0
        for mod in content_losses:
            loss += mod.loss
        for mod in style_losses:
            loss += mod.loss
        loss.backward()  # also: GG107
        if num_calls[0] % 2 == 0:
            print("Iteration", num_calls[0], "Total loss:", loss.item())
        return loss

    while num_calls[0] <= 4:
        optimizer.step(feval)


if __name__ == "__main__":
    main()
