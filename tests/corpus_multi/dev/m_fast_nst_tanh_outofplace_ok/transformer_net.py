import torch
import torch.nn as nn


class ConvLayer(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride):
        super().__init__()
        self.reflection_pad = nn.ReflectionPad2d(kernel_size // 2)
        self.conv2d = nn.Conv2d(in_channels, out_channels, kernel_size, stride)

    def forward(self, x):
        return self.conv2d(self.reflection_pad(x))


class ResidualBlock(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv1 = ConvLayer(channels, channels, kernel_size=3, stride=1)
        self.in1 = nn.InstanceNorm2d(channels, affine=True)
        self.conv2 = ConvLayer(channels, channels, kernel_size=3, stride=1)
        self.in2 = nn.InstanceNorm2d(channels, affine=True)
        self.relu = nn.ReLU()

    def forward(self, x):
        residual = x
        out = self.relu(self.in1(self.conv1(x)))
        out = self.in2(self.conv2(out))
        return out + residual


class UpsampleConvLayer(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, upsample=None):
        super().__init__()
        self.upsample = upsample
        self.upsample_layer = nn.Upsample(scale_factor=upsample, mode="nearest") if upsample else None
        self.reflection_pad = nn.ReflectionPad2d(kernel_size // 2)
        self.conv2d = nn.Conv2d(in_channels, out_channels, kernel_size, stride)

    def forward(self, x):
        if self.upsample_layer is not None:
            x = self.upsample_layer(x)
        return self.conv2d(self.reflection_pad(x))


class TransformerNet(nn.Module):
    def __init__(self, ch=8):
        super().__init__()
        self.conv1 = ConvLayer(3, ch, kernel_size=5, stride=1)
        self.in1 = nn.InstanceNorm2d(ch, affine=True)
        self.conv2 = ConvLayer(ch, 2 * ch, kernel_size=3, stride=2)
        self.in2 = nn.InstanceNorm2d(2 * ch, affine=True)
        self.res1 = ResidualBlock(2 * ch)
        self.res2 = ResidualBlock(2 * ch)
        self.deconv1 = UpsampleConvLayer(2 * ch, ch, kernel_size=3, stride=1, upsample=2)
        self.in4 = nn.InstanceNorm2d(ch, affine=True)
        self.deconv3 = ConvLayer(ch, 3, kernel_size=5, stride=1)
        self.relu = nn.ReLU()
        self.tanh = nn.Tanh()

    def forward(self, X):
        y = self.relu(self.in1(self.conv1(X)))
        y = self.relu(self.in2(self.conv2(y)))
        y = self.res2(self.res1(y))
        y = self.relu(self.in4(self.deconv1(y)))
        y = self.tanh(self.deconv3(y))
        return y
