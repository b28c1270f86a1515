# corpus: monodepth2-style Trainer (trainer.py) adapts on the validation minibatch, but val() computes those losses (layers.py) inside torch.no_grad(), so its backward has no graph
# raises: RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
# source: https://github.com/nianticlabs/monodepth2/issues/24
import torch

from options import MonodepthOptions
from trainer import Trainer


def make_batches(opt, n):
    batches = []
    for _ in range(n):
        color = torch.rand(opt.batch_size, 3, opt.height, opt.width)
        depth_gt = torch.rand(opt.batch_size, 1, opt.height, opt.width) * 50
        depth_gt[depth_gt < 5] = 0  # missing lidar returns
        batches.append({("color", 0, 0): color, ("color_aug", 0, 0): color.clone(), "depth_gt": depth_gt})
    return batches


def main():
    torch.manual_seed(0)
    opts = MonodepthOptions()
    trainer = Trainer(opts, make_batches(opts, 3), make_batches(opts, 2))
    trainer.train()  # also: GG106


if __name__ == "__main__":
    main()
