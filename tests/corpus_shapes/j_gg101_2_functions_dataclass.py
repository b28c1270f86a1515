# corpus: train_one_epoch backpropagates a StepResult's loss, then clip_and_step backpropagates the same record's loss again
# raises: RuntimeError: Trying to backward through the graph a second time
# source: docs/rules/GG101.md (shape: 2, 4)
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class StepResult:
    loss: torch.Tensor
    logits: torch.Tensor
    n_correct: int


def compute_loss(model, x, y):
    logits = model(x)
    loss = F.cross_entropy(logits, y)
    n_correct = int((logits.argmax(1) == y).sum())
    return StepResult(loss=loss, logits=logits, n_correct=n_correct)


def clip_and_step(model, opt, result, max_norm=1.0):
    result.loss.backward()  # expect: GG101
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    opt.step()


def train_one_epoch(model, opt, data):
    correct = 0
    for x, y in data:
        opt.zero_grad()
        result = compute_loss(model, x, y)
        result.loss.backward()
        clip_and_step(model, opt, result)
        correct += result.n_correct
    return correct


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(5, 16), nn.ReLU(), nn.Linear(16, 3))
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    data = [(torch.randn(8, 5), torch.randint(0, 3, (8,))) for _ in range(3)]
    for epoch in range(2):
        print(epoch, train_one_epoch(model, opt, data))


if __name__ == "__main__":
    main()
