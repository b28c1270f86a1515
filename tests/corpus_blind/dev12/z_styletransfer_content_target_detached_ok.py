# corpus: D2L-style neural style transfer written as in the book: content features and style Gram targets are computed once before the loop, and content_loss/style_loss detach the targets, so every epoch backpropagates only into the synthesized image
# source: https://1cademy.com/node/content-loss-in-cnn-based-style-transfer/8SdxqU4qo3C1y2taoi6c
import random

import numpy as np
import torch
from torch import nn

torch.manual_seed(0)
random.seed(0)
np.random.seed(0)

rgb_mean = torch.tensor([0.485, 0.456, 0.406])
rgb_std = torch.tensor([0.229, 0.224, 0.225])

style_layers, content_layers = [0, 2, 5], [5]
content_weight, style_weight, tv_weight = 1, 1e3, 10


def build_pretrained_features():
    # stands in for torchvision.models.vgg19(pretrained=True).features
    return nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(),
        nn.Conv2d(8, 8, 3, padding=1), nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(),
    )


pretrained_features = build_pretrained_features()
net = nn.Sequential(*[pretrained_features[i] for i in
                      range(max(content_layers + style_layers) + 1)])


def preprocess(img):
    return ((img - rgb_mean.view(3, 1, 1)) / rgb_std.view(3, 1, 1)).unsqueeze(0)


def extract_features(X, content_layers, style_layers):
    contents = []
    styles = []
    for i in range(len(net)):
        X = net[i](X)
        if i in style_layers:
            styles.append(X)
        if i in content_layers:
            contents.append(X)
    return contents, styles


def get_contents(content_img):
    content_X = preprocess(content_img)
    contents_Y, _ = extract_features(content_X, content_layers, style_layers)
    return content_X, contents_Y


def get_styles(style_img):
    style_X = preprocess(style_img)
    _, styles_Y = extract_features(style_X, content_layers, style_layers)
    return style_X, styles_Y


def content_loss(Y_hat, Y):
    return torch.square(Y_hat - Y.detach()).mean()


def gram(X):
    num_channels, n = X.shape[1], X.numel() // X.shape[1]
    X = X.reshape((num_channels, n))
    return torch.matmul(X, X.T) / (num_channels * n)


def style_loss(Y_hat, gram_Y):
    return torch.square(gram(Y_hat) - gram_Y.detach()).mean()


def tv_loss(Y_hat):
    return 0.5 * (torch.abs(Y_hat[:, :, 1:, :] - Y_hat[:, :, :-1, :]).mean() +
                  torch.abs(Y_hat[:, :, :, 1:] - Y_hat[:, :, :, :-1]).mean())


def compute_loss(X, contents_Y_hat, styles_Y_hat, contents_Y, styles_Y_gram):
    contents_l = [content_loss(Y_hat, Y) * content_weight for Y_hat, Y in zip(
        contents_Y_hat, contents_Y)]
    styles_l = [style_loss(Y_hat, Y) * style_weight for Y_hat, Y in zip(
        styles_Y_hat, styles_Y_gram)]
    tv_l = tv_loss(X) * tv_weight
    l = sum(styles_l + contents_l + [tv_l])
    return contents_l, styles_l, tv_l, l


class SynthesizedImage(nn.Module):
    def __init__(self, img_shape, **kwargs):
        super(SynthesizedImage, self).__init__(**kwargs)
        self.weight = nn.Parameter(torch.rand(*img_shape))

    def forward(self):
        return self.weight


def get_inits(X, lr, styles_Y):
    gen_img = SynthesizedImage(X.shape)
    gen_img.weight.data.copy_(X.data)
    trainer = torch.optim.Adam(gen_img.parameters(), lr=lr)
    styles_Y_gram = [gram(Y) for Y in styles_Y]
    return gen_img(), styles_Y_gram, trainer


def train(X, contents_Y, styles_Y, lr, num_epochs, lr_decay_epoch):
    X, styles_Y_gram, trainer = get_inits(X, lr, styles_Y)
    scheduler = torch.optim.lr_scheduler.StepLR(trainer, lr_decay_epoch, 0.8)
    history = []
    for epoch in range(num_epochs):
        trainer.zero_grad()
        contents_Y_hat, styles_Y_hat = extract_features(
            X, content_layers, style_layers)
        contents_l, styles_l, tv_l, l = compute_loss(
            X, contents_Y_hat, styles_Y_hat, contents_Y, styles_Y_gram)
        l.backward()
        trainer.step()
        scheduler.step()
        history.append((sum(contents_l).item(), sum(styles_l).item(), tv_l.item()))
    return X, history


def main():
    content_img = torch.rand(3, 16, 16)
    style_img = torch.rand(3, 16, 16)
    content_X, contents_Y = get_contents(content_img)
    _, styles_Y = get_styles(style_img)
    output, history = train(content_X, contents_Y, styles_Y, 0.3, 5, 50)
    print("final losses", history[-1])


if __name__ == "__main__":
    main()
