# corpus: fast neural style (transformer_net.py ending in nn.Tanh, vgg16.py, utils.py): utils.subtract_imagenet_mean_batch does `batch -= mean` in place on the transformer output y, which is the Tanh output its backward saved, so total_loss.backward() fails
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/abhiskk/fast-neural-style/issues/12
import torch
from torch.optim import Adam

import utils
from transformer_net import TransformerNet
from vgg16 import Vgg16


def train(args):
    torch.manual_seed(args["seed"])
    train_loader = [(torch.rand(args["batch_size"], 3, 16, 16) * 255, 0) for _ in range(3)]

    transformer = TransformerNet()
    optimizer = Adam(transformer.parameters(), args["lr"])
    mse_loss = torch.nn.MSELoss()
    vgg = Vgg16()

    style = torch.rand(1, 3, 16, 16) * 255
    style = style.repeat(args["batch_size"], 1, 1, 1)
    style = utils.preprocess_batch(style)
    with torch.no_grad():
        style_v = utils.subtract_imagenet_mean_batch(style)
        features_style = vgg(style_v)
        gram_style = [utils.gram_matrix(y) for y in features_style]

    for e in range(args["epochs"]):
        transformer.train()
        agg_content_loss = 0.0
        agg_style_loss = 0.0
        for batch_id, (x, _) in enumerate(train_loader):
            n_batch = len(x)
            optimizer.zero_grad()
            x = utils.preprocess_batch(x)
            y = transformer(x)

            with torch.no_grad():
                xc = x.clone()
                xc = utils.subtract_imagenet_mean_batch(xc)
                features_xc = vgg(xc)
            y = utils.subtract_imagenet_mean_batch(y)  # also: GG107

            features_y = vgg(y)
            f_xc_c = features_xc[1].detach()
            content_loss = args["content_weight"] * mse_loss(features_y[1], f_xc_c)

            style_loss = 0.0
            for m in range(len(features_y)):
                gram_s = gram_style[m].detach()
                gram_y = utils.gram_matrix(features_y[m])
                style_loss += args["style_weight"] * mse_loss(gram_y, gram_s[:n_batch, :, :])

            total_loss = content_loss + style_loss
            total_loss.backward()  # also: GG107
            optimizer.step()

            agg_content_loss += content_loss.item()
            agg_style_loss += style_loss.item()
        print(f"Epoch {e + 1}: content {agg_content_loss:.4f} style {agg_style_loss:.4f}")


def main():
    args = {"seed": 0, "batch_size": 2, "lr": 1e-3, "epochs": 2, "content_weight": 1.0, "style_weight": 5.0}
    train(args)


if __name__ == "__main__":
    main()
