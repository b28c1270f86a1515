# corpus: nn.Module built from a dataclass config whose reset_parameters() helper fills a Linear bias in place outside no_grad (in-place op on a parameter leaf)
# raises: RuntimeError: a leaf Variable that requires grad is being used in an in-place operation.
# source: docs/rules/GG108.md (shape: 4, 6)
from dataclasses import dataclass

import torch
import torch.nn as nn


@dataclass
class HeadConfig:
    in_features: int = 8
    hidden: int = 16
    num_classes: int = 3
    bias_prior: float = -2.0


class ClassifierHead(nn.Module):
    def __init__(self, cfg: HeadConfig) -> None:
        super().__init__()
        self.cfg = cfg
        self.body = nn.Sequential(nn.Linear(cfg.in_features, cfg.hidden), nn.ReLU())
        self.out = nn.Linear(cfg.hidden, cfg.num_classes)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        nn.init.xavier_uniform_(self.out.weight)
        self.out.bias.fill_(self.cfg.bias_prior)  # expect: GG108

    @property
    def num_classes(self) -> int:
        return self.cfg.num_classes

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.out(self.body(x))


def main():
    torch.manual_seed(0)
    cfg = HeadConfig()
    model = ClassifierHead(cfg)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.randn(4, cfg.in_features)
    labels = torch.randint(0, model.num_classes, (4,))
    loss = nn.functional.cross_entropy(model(x), labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()


if __name__ == "__main__":
    main()
