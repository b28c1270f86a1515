# corpus: correct: CornerNet-style training; kp_utils._sigmoid calls x.sigmoid_() in place on the heatmap head's raw Conv2d output (which Conv2d does not save) and clamps out of place, and py_factory reduces the (1,) loss with mean() before backward
# source: https://github.com/princeton-vl/CornerNet/issues/101
import torch

from kp import AELoss, kp
from nnet.py_factory import NetworkFactory


def make_batch(batch_size=2, categories=3, size=16, max_tag_len=4):
    out = size // 2
    images = torch.rand(batch_size, 3, size, size)
    tl_heatmaps = torch.zeros(batch_size, categories, out, out)
    br_heatmaps = torch.zeros(batch_size, categories, out, out)
    tag_masks = torch.zeros(batch_size, max_tag_len, dtype=torch.bool)
    tl_regrs = torch.rand(batch_size, max_tag_len, 2)
    br_regrs = torch.rand(batch_size, max_tag_len, 2)
    tl_tags = torch.zeros(batch_size, max_tag_len, dtype=torch.long)
    br_tags = torch.zeros(batch_size, max_tag_len, dtype=torch.long)
    for b in range(batch_size):
        for k in range(2):
            c = int(torch.randint(0, categories, ()))
            xtl, ytl = torch.randint(0, out // 2, (2,)).tolist()
            xbr, ybr = (torch.randint(out // 2, out, (2,))).tolist()
            tl_heatmaps[b, c, ytl, xtl] = 1
            br_heatmaps[b, c, ybr, xbr] = 1
            tl_tags[b, k] = ytl * out + xtl
            br_tags[b, k] = ybr * out + xbr
            tag_masks[b, k] = True
    xs = [images, tl_tags, br_tags]
    ys = [tl_heatmaps, br_heatmaps, tag_masks, tl_regrs, br_regrs]
    return xs, ys


def main():
    torch.manual_seed(0)
    nnet = NetworkFactory(kp(out_dim=3), AELoss())
    nnet.train_mode()
    batches = [make_batch() for _ in range(2)]
    for iteration in range(4):
        xs, ys = batches[iteration % len(batches)]
        training_loss = nnet.train(xs, ys)
        print("training loss at iteration {}: {:.4f}".format(iteration + 1, training_loss.item()))


if __name__ == "__main__":
    main()
