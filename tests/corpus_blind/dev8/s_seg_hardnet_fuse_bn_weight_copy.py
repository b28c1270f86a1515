# corpus: HarDNet-style segmentation net trained briefly, then conv+BN layers are fused for fast evaluation by slice-assigning the folded weights into a fresh nn.Conv2d parameter while autograd is recording
# raises: RuntimeError: a leaf Variable that requires grad is being used in an in-place operation.
# source: https://github.com/PingoLH/FCHarDNet/issues/61
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class ConvLayer(nn.Sequential):
    def __init__(self, in_channels, out_channels, kernel=3, stride=1):
        super().__init__()
        self.add_module("conv", nn.Conv2d(in_channels, out_channels, kernel, stride=stride, padding=kernel // 2, bias=False))
        self.add_module("norm", nn.BatchNorm2d(out_channels))
        self.add_module("relu", nn.ReLU(inplace=True))


class TinyHarDNet(nn.Module):
    def __init__(self, n_classes=4):
        super().__init__()
        self.base = nn.ModuleList([ConvLayer(3, 8, stride=2), ConvLayer(8, 16), ConvLayer(16, 16)])
        self.final = nn.Conv2d(16, n_classes, 1)

    def forward(self, x):
        size = x.shape[2:]
        for layer in self.base:
            x = layer(x)
        return F.interpolate(self.final(x), size=size, mode="bilinear", align_corners=True)


def fuse_bn_recursively(module):
    for name, child in module.named_children():
        if isinstance(child, ConvLayer):
            conv, bn = child.conv, child.norm
            w = conv.weight
            std = torch.sqrt(bn.running_var + bn.eps)
            W = w * (bn.weight / std).reshape(-1, 1, 1, 1)
            b = bn.bias - bn.weight * bn.running_mean / std
            cconv = nn.Conv2d(conv.in_channels, conv.out_channels, conv.kernel_size, stride=conv.stride, padding=conv.padding, bias=True)
            cconv.weight[:, :, :, :] = W[:, :, :, :]  # expect: GG108
            cconv.bias[:] = b[:]
            setattr(module, name, nn.Sequential(cconv, nn.ReLU(inplace=True)))
        else:
            fuse_bn_recursively(child)
    return module


def train(model, args):
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=5e-4)
    loss_fn = nn.CrossEntropyLoss(ignore_index=250)
    model.train()
    for it in range(args.iters):
        images = torch.randn(2, 3, 16, 16)
        labels = torch.randint(0, 4, (2, 16, 16))
        optimizer.zero_grad()
        loss = loss_fn(model(images), labels)
        loss.backward()
        optimizer.step()
        print(f"iter {it} loss {loss.item():.4f}")


def validate(model):
    model.eval()
    model = fuse_bn_recursively(model)
    with torch.no_grad():
        pred = model(torch.randn(1, 3, 16, 16)).argmax(1)
    return pred


def main():
    parser = argparse.ArgumentParser(description="Hyperparams")
    parser.add_argument("--lr", type=float, default=0.02)
    parser.add_argument("--iters", type=int, default=2)
    args = parser.parse_args([])
    torch.manual_seed(0)
    model = TinyHarDNet()
    train(model, args)
    print(validate(model).shape)


if __name__ == "__main__":
    main()
