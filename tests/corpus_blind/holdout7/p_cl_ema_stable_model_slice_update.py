# corpus: SCoMMER/CLS-ER-style continual learner keeping an EMA "stable model" (deepcopy of the net); the EMA update assigns through ema_param[:] without torch.no_grad on parameters that still require grad
# raises: RuntimeError: a leaf Variable that requires grad is being used in an in-place operation.
# source: https://github.com/NeurAI-Lab/SCoMMER/issues/1
import argparse
from copy import deepcopy

import torch
import torch.nn as nn
import torch.nn.functional as F


class ResNetLite(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU())
        self.linear = nn.Linear(64, num_classes)

    def forward(self, x):
        return self.linear(self.body(x))


class Buffer:
    def __init__(self, size):
        self.size = size
        self.examples, self.labels = [], []

    def add_data(self, examples, labels):
        for x, y in zip(examples, labels):
            if len(self.examples) < self.size:
                self.examples.append(x)
                self.labels.append(y)

    def get_data(self, n):
        idx = torch.randperm(len(self.examples))[:n]
        return torch.stack([self.examples[i] for i in idx]), torch.stack([self.labels[i] for i in idx])

    def is_empty(self):
        return len(self.examples) == 0


class SCoMMER:
    def __init__(self, args):
        self.args = args
        self.net = ResNetLite(args.n_classes)
        self.opt = torch.optim.SGD(self.net.parameters(), lr=args.lr)
        self.loss = nn.CrossEntropyLoss()
        self.ema_model = deepcopy(self.net)
        self.buffer = Buffer(args.buffer_size)
        self.global_step = 0

    def observe(self, inputs, labels):
        self.opt.zero_grad()
        outputs = self.net(inputs)
        loss = self.loss(outputs, labels)
        if not self.buffer.is_empty():
            buf_inputs, buf_labels = self.buffer.get_data(self.args.minibatch_size)
            with torch.no_grad():
                ema_logits = self.ema_model(buf_inputs)
            buf_out = self.net(buf_inputs)
            loss = loss + self.args.reg_weight * F.mse_loss(buf_out, ema_logits) \
                + self.loss(buf_out, buf_labels)
        loss.backward()
        self.opt.step()
        self.buffer.add_data(inputs, labels)
        self.global_step += 1
        self.update_ema_model_variables()
        return loss.item()

    def update_ema_model_variables(self):
        alpha = min(1 - 1 / (self.global_step + 1), self.args.ema_alpha)
        for ema_param, param in zip(self.ema_model.parameters(), self.net.parameters()):
            ema_param[:] = alpha * ema_param + (1 - alpha) * param.detach()  # expect: GG108


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n_classes", type=int, default=10)
    parser.add_argument("--lr", type=float, default=0.03)
    parser.add_argument("--buffer_size", type=int, default=50)
    parser.add_argument("--minibatch_size", type=int, default=8)
    parser.add_argument("--reg_weight", type=float, default=0.1)
    parser.add_argument("--ema_alpha", type=float, default=0.999)
    args = parser.parse_args([])
    torch.manual_seed(0)
    model = SCoMMER(args)
    for task in range(2):
        for it in range(3):
            x = torch.randn(8, 32)
            y = torch.randint(task * 5, task * 5 + 5, (8,))
            model.observe(x, y)


if __name__ == "__main__":
    main()
