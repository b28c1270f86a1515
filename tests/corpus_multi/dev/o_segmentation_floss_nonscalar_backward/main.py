# corpus: saliency training with the F-measure loss from floss.py, which returns one loss per image; engine.train_one_epoch calls backward() on that vector
# raises: RuntimeError: grad can be implicitly created only for scalar outputs
# source: https://github.com/zeakey/iccv2019-fmeasure/issues/1
from dataclasses import dataclass

import torch

import engine
from floss import FLoss
from model import SaliencyNet


@dataclass
class Config:
    epochs: int = 2
    batch_size: int = 4
    lr: float = 1e-3
    beta: float = 0.3
    size: int = 16


def make_batches(cfg):
    batches = []
    for _ in range(2):
        image = torch.rand(cfg.batch_size, 3, cfg.size, cfg.size)
        target = (torch.rand(cfg.batch_size, 1, cfg.size, cfg.size) > 0.5).float()
        batches.append((image, target))
    return batches


def main():
    torch.manual_seed(0)
    cfg = Config()
    model = SaliencyNet()
    criterion = FLoss(beta=cfg.beta)
    optimizer = torch.optim.SGD(model.parameters(), lr=cfg.lr, momentum=0.9)
    batches = make_batches(cfg)
    for epoch in range(cfg.epochs):
        engine.train_one_epoch(model, criterion, optimizer, batches, epoch)  # also: GG109


if __name__ == "__main__":
    main()
