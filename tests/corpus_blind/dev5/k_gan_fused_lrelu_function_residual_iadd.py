# corpus: StyleGAN2-style discriminator ResBlock built on a custom autograd.Function (FusedLeakyReLU) that saves its output for backward; the block then adds the skip path in place (out += skip), overwriting the saved tensor
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/pytorch/pytorch/issues/5687
import argparse
import math

import torch
from torch import nn
from torch.nn import functional as F


class FusedLeakyReLUFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input, bias, negative_slope, scale):
        rest_dim = [1] * (input.ndim - 2)
        out = F.leaky_relu(input + bias.view(1, bias.shape[0], *rest_dim), negative_slope) * scale
        ctx.save_for_backward(out)
        ctx.negative_slope = negative_slope
        ctx.scale = scale
        return out

    @staticmethod
    def backward(ctx, grad_output):
        (out,) = ctx.saved_tensors
        slope = torch.where(out >= 0, torch.ones_like(out), torch.full_like(out, ctx.negative_slope))
        grad_input = grad_output * slope * ctx.scale
        dim = [0] + list(range(2, grad_output.ndim))
        grad_bias = grad_input.sum(dim)
        return grad_input, grad_bias, None, None


class FusedLeakyReLU(nn.Module):
    def __init__(self, channel, negative_slope=0.2, scale=2 ** 0.5):
        super().__init__()
        self.bias = nn.Parameter(torch.zeros(channel))
        self.negative_slope = negative_slope
        self.scale = scale

    def forward(self, input):
        return FusedLeakyReLUFunction.apply(input, self.bias, self.negative_slope, self.scale)


class ConvLayer(nn.Sequential):
    def __init__(self, in_channel, out_channel, kernel_size, activate=True):
        layers = [nn.Conv2d(in_channel, out_channel, kernel_size, padding=kernel_size // 2, bias=not activate)]
        if activate:
            layers.append(FusedLeakyReLU(out_channel))
        super().__init__(*layers)


class ResBlock(nn.Module):
    def __init__(self, in_channel, out_channel):
        super().__init__()
        self.conv1 = ConvLayer(in_channel, in_channel, 3)
        self.conv2 = ConvLayer(in_channel, out_channel, 3)
        self.skip = ConvLayer(in_channel, out_channel, 1, activate=False)

    def forward(self, input):
        out = self.conv1(input)
        out = self.conv2(out)
        skip = self.skip(input)
        out += skip  # expect: GG107
        return out / math.sqrt(2)


class Discriminator(nn.Module):
    def __init__(self, size=8, channels=8):
        super().__init__()
        self.convs = nn.Sequential(ConvLayer(3, channels, 1), ResBlock(channels, channels))
        self.final_linear = nn.Sequential(nn.Linear(channels * size * size, channels), nn.LeakyReLU(0.2), nn.Linear(channels, 1))

    def forward(self, input):
        out = self.convs(input)
        return self.final_linear(out.flatten(1))


def d_logistic_loss(real_pred, fake_pred):
    return F.softplus(-real_pred).mean() + F.softplus(fake_pred).mean()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--iter", type=int, default=2)
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--size", type=int, default=8)
    args = parser.parse_args([])
    torch.manual_seed(0)

    generator = nn.Sequential(nn.Linear(16, 3 * args.size * args.size), nn.Tanh())
    discriminator = Discriminator(args.size)
    d_optim = torch.optim.Adam(discriminator.parameters(), lr=0.002, betas=(0.0, 0.99))

    for i in range(args.iter):
        real_img = torch.randn(args.batch, 3, args.size, args.size)
        with torch.no_grad():
            fake_img = generator(torch.randn(args.batch, 16)).view(args.batch, 3, args.size, args.size)
        d_loss = d_logistic_loss(discriminator(real_img), discriminator(fake_img))
        discriminator.zero_grad()
        d_loss.backward()  # also: GG107
        d_optim.step()
        print(i, d_loss.item())


if __name__ == "__main__":
    main()
