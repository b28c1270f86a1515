# corpus: neural style transfer with LBFGS (models.py VGG, losses.py Gram losses, utils.py pre/postprocess): after optimizing, utils.postprocess(opt_img[0]) does x.mul_(1/255) on a view of the leaf image that requires grad, outside torch.no_grad()
# raises: RuntimeError: a view of a leaf Variable that requires grad is being used in an in-place operation.
# source: https://github.com/PacktPublishing/Modern-Computer-Vision-with-PyTorch/issues/36
import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim

import utils as U
from losses import GramMatrix, GramMSELoss
from models import vgg19_modified


def main():
    torch.manual_seed(0)
    vgg = vgg19_modified()
    rng = np.random.default_rng(0)
    imgs = [rng.random((16, 16, 3)) for _ in range(2)]
    style_image, content_image = [U.preprocess(img)[None] for img in imgs]

    opt_img = content_image.data.clone()
    opt_img.requires_grad = True

    style_layers = [0, 2, 5]
    content_layers = [7]
    loss_layers = style_layers + content_layers
    loss_fns = [GramMSELoss()] * len(style_layers) + [nn.MSELoss()] * len(content_layers)
    style_weights = [1000 / n ** 2 for n in [8, 8, 16]]
    weights = style_weights + [1]

    style_targets = [GramMatrix()(A).detach() for A in vgg(style_image, style_layers)]
    content_targets = [A.detach() for A in vgg(content_image, content_layers)]
    targets = style_targets + content_targets

    max_iters = 6
    optimizer = optim.LBFGS([opt_img], max_iter=3)
    log = U.Report(max_iters)

    iters = 0
    while iters < max_iters:
        def closure():
            nonlocal iters
            iters += 1
            optimizer.zero_grad()
            out = vgg(opt_img, loss_layers)
            layer_losses = [weights[a] * loss_fns[a](A, targets[a]) for a, A in enumerate(out)]
            loss = sum(layer_losses)
            loss.backward()
            log.record(pos=iters, loss=loss.item())
            return loss

        optimizer.step(closure)

    out_img = U.postprocess(opt_img[0]).permute(1, 2, 0)  # also: GG108
    print("final loss", log.records[-1][1]["loss"], tuple(out_img.shape))


if __name__ == "__main__":
    main()
