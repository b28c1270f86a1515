# corpus: fast-neural-style image transformation net with an nn.Tanh() output layer; the training loop subtracts the ImageNet mean from the output in place, overwriting the tensor Tanh saved for backward
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/pytorch/pytorch/issues/1321
import argparse

import torch
import torch.nn as nn

IMAGENET_MEAN = [0.485, 0.456, 0.406]


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


class TransformerNet(nn.Module):
    def __init__(self, ch=8):
        super().__init__()
        self.conv1 = ConvLayer(3, ch, kernel_size=9, stride=1)
        self.in1 = nn.InstanceNorm2d(ch, affine=True)
        self.res1 = ResidualBlock(ch)
        self.deconv3 = ConvLayer(ch, 3, kernel_size=9, stride=1)
        self.relu = nn.ReLU()
        self.tanh = nn.Tanh()

    def forward(self, X):
        y = self.relu(self.in1(self.conv1(X)))
        y = self.res1(y)
        return self.tanh(self.deconv3(y))


class LossNetwork(nn.Module):
    """Stand-in for the frozen VGG16 feature extractor (relu1_2, relu2_2)."""

    def __init__(self):
        super().__init__()
        self.slice1 = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU())
        self.slice2 = nn.Sequential(nn.Conv2d(8, 16, 3, stride=2, padding=1), nn.ReLU())
        for p in self.parameters():
            p.requires_grad = False

    def forward(self, x):
        h1 = self.slice1(x)
        h2 = self.slice2(h1)
        return h1, h2


def gram_matrix(y):
    b, ch, h, w = y.size()
    features = y.view(b, ch, w * h)
    return features.bmm(features.transpose(1, 2)) / (ch * h * w)


def subtract_imagenet_mean_batch(batch):
    mean = batch.new_tensor(IMAGENET_MEAN).view(1, 3, 1, 1)
    batch -= mean  # expect: GG107
    return batch


def train(args):
    transformer = TransformerNet()
    vgg = LossNetwork()
    optimizer = torch.optim.Adam(transformer.parameters(), args.lr)
    mse_loss = nn.MSELoss()

    style = subtract_imagenet_mean_batch(torch.rand(1, 3, 32, 32))
    gram_style = [gram_matrix(f) for f in vgg(style)]

    for e in range(args.epochs):
        transformer.train()
        for batch_id in range(args.batches):
            x = torch.rand(args.batch_size, 3, 32, 32)
            optimizer.zero_grad()
            y = transformer(x)

            with torch.no_grad():
                xc = x.clone()

            y = subtract_imagenet_mean_batch(y)
            xc = subtract_imagenet_mean_batch(xc)

            features_y = vgg(y)
            features_xc = vgg(xc)

            content_loss = args.content_weight * mse_loss(features_y[1], features_xc[1])
            style_loss = 0.
            for m in range(len(features_y)):
                gram_y = gram_matrix(features_y[m])
                style_loss += mse_loss(gram_y, gram_style[m].expand_as(gram_y))
            style_loss *= args.style_weight

            total_loss = content_loss + style_loss
            total_loss.backward()  # also: GG107
            optimizer.step()
            print("epoch %d batch %d content %.4f style %.4f" % (e, batch_id, content_loss.item(), style_loss.item()))


def main():
    parser = argparse.ArgumentParser(description="parser for fast-neural-style")
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--batches", type=int, default=2)
    parser.add_argument("--batch_size", type=int, default=2)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--content_weight", type=float, default=1.0)
    parser.add_argument("--style_weight", type=float, default=5.0)
    args = parser.parse_args([])
    torch.manual_seed(42)
    train(args)


if __name__ == "__main__":
    main()
