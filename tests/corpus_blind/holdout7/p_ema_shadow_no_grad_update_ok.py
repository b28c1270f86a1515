# corpus: classifier trained with an EMA wrapper whose shadow copy is detached at construction and updated in place under @torch.no_grad after each optimizer step (correct)
# source: https://www.zijianhu.com/post/pytorch/ema/
import argparse
from collections import OrderedDict
from copy import deepcopy

import torch
import torch.nn as nn
import torch.nn.functional as F


class EMA(nn.Module):
    def __init__(self, model: nn.Module, decay: float):
        super().__init__()
        self.decay = decay
        self.model = model
        self.shadow = deepcopy(self.model)
        for param in self.shadow.parameters():
            param.detach_()

    @torch.no_grad()
    def update(self):
        if not self.training:
            return
        model_params = OrderedDict(self.model.named_parameters())
        shadow_params = OrderedDict(self.shadow.named_parameters())
        assert model_params.keys() == shadow_params.keys()
        for name, param in model_params.items():
            # shadow_variable -= (1 - decay) * (shadow_variable - variable)
            shadow_params[name].sub_((1. - self.decay) * (shadow_params[name] - param))
        model_buffers = OrderedDict(self.model.named_buffers())
        shadow_buffers = OrderedDict(self.shadow.named_buffers())
        for name, buffer in model_buffers.items():
            shadow_buffers[name].copy_(buffer)

    def forward(self, inputs):
        if self.training:
            return self.model(inputs)
        return self.shadow(inputs)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--decay", type=float, default=0.99)
    parser.add_argument("--lr", type=float, default=0.05)
    args = parser.parse_args([])
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(10, 32), nn.BatchNorm1d(32), nn.ReLU(), nn.Linear(32, 3))
    model = EMA(net, decay=args.decay)
    optimizer = torch.optim.SGD(net.parameters(), lr=args.lr)
    model.train()
    for step in range(5):
        x, y = torch.randn(16, 10), torch.randint(0, 3, (16,))
        loss = F.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        model.update()
    model.eval()
    with torch.no_grad():
        print(model(torch.randn(4, 10)).argmax(-1))


if __name__ == "__main__":
    main()
