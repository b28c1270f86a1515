# corpus: in-memory logger's scalar_to_float calls .numpy() on the live training loss handed over by a train-step callback
# raises: RuntimeError: Can't call numpy() on Tensor that requires grad
# source: https://github.com/meta-pytorch/tnt/pull/551
from typing import Dict, List, Union

import torch
import torch.nn as nn

Scalar = Union[torch.Tensor, float, int]


def scalar_to_float(scalar: Scalar) -> float:
    if isinstance(scalar, (int, float)):
        return float(scalar)
    if scalar.numel() != 1:
        raise ValueError(f"Scalar tensor must contain a single item, {scalar.numel()} given.")
    return float(scalar.cpu().numpy().reshape(-1)[0])  # expect: GG110


class InMemoryLogger:
    def __init__(self):
        self.log_buffer: Dict[int, Dict[str, float]] = {}

    def log(self, name: str, data: Scalar, step: int) -> None:
        self.log_buffer.setdefault(step, {})[name] = scalar_to_float(data)


class Callback:
    def on_train_step_end(self, state, unit) -> None:
        pass


class TrainLossLogger(Callback):
    def __init__(self, logger: InMemoryLogger, every_n_steps: int = 1):
        self.logger = logger
        self.every_n_steps = every_n_steps

    def on_train_step_end(self, state, unit) -> None:
        step = state["step"]
        if step % self.every_n_steps == 0:
            self.logger.log("train_loss", unit.loss, step)  # also: GG110


class RegressionUnit:
    def __init__(self, module: nn.Module, lr: float = 1e-2):
        self.module = module
        self.optimizer = torch.optim.SGD(module.parameters(), lr=lr)
        self.loss = None

    def train_step(self, state, data):
        x, y = data
        loss = nn.functional.smooth_l1_loss(self.module(x), y)
        loss.backward()
        self.optimizer.step()
        self.optimizer.zero_grad()
        self.loss = loss
        return loss


def train(unit: RegressionUnit, dataloader, callbacks: List[Callback], max_epochs: int = 1):
    state = {"step": 0, "epoch": 0}
    for epoch in range(max_epochs):
        state["epoch"] = epoch
        for data in dataloader:
            unit.train_step(state, data)
            state["step"] += 1
            for cb in callbacks:
                cb.on_train_step_end(state, unit)


def main():
    torch.manual_seed(0)
    module = nn.Sequential(nn.Linear(5, 8), nn.GELU(), nn.Linear(8, 1))
    logger = InMemoryLogger()
    unit = RegressionUnit(module)
    loader = [(torch.randn(16, 5), torch.randn(16, 1)) for _ in range(4)]
    train(unit, loader, callbacks=[TrainLossLogger(logger)])
    print(logger.log_buffer)


if __name__ == "__main__":
    main()
