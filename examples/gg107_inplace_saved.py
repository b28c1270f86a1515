# gradguard reports GG107 (inplace-on-saved-tensor) on line 13.
import torch
import torch.nn as nn


class StyleLoss(nn.Module):
    def forward(self, input):
        features = input.view(8, 256)
        self.loss = torch.mm(features, features.t()).sum()
        return input


cnn = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(inplace=True))
style = StyleLoss()
net = nn.Sequential()
for layer in list(cnn):
    net.add_module(str(len(net)), layer)
    if isinstance(layer, nn.Conv2d):
        net.add_module(str(len(net)), style)
img = nn.Parameter(torch.rand(1, 3, 16, 16))
net(img)
style.loss.backward()
