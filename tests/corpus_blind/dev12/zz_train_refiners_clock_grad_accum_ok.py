# corpus: refiners-style Trainer with a TrainingClock and callbacks; backward() scales the loss by num_step_per_iteration, accumulates, and only on clock.is_optimizer_step calls optimizer.step() then optimizer.zero_grad(); the maintainer confirmed the accumulation is already right; correct
# source: https://github.com/finegrain-ai/refiners/pull/291
import random
from dataclasses import dataclass, field
from typing import List

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import backward

random.seed(0)
np.random.seed(0)
torch.manual_seed(0)


@dataclass
class TrainingConfig:
    num_epochs: int = 2
    gradient_accumulation: int = 3
    batch_size: int = 4
    learning_rate: float = 1e-2
    evaluation_interval: int = 6


@dataclass
class Batch:
    x: torch.Tensor
    y: torch.Tensor


class TrainingClock:
    def __init__(self, dataset_length, config: TrainingConfig):
        self.dataset_length = dataset_length
        self.config = config
        self.step = 0
        self.epoch = 0
        self.iteration = 0

    @property
    def num_step_per_iteration(self) -> int:
        return self.config.gradient_accumulation

    @property
    def is_optimizer_step(self) -> bool:
        return self.step % self.num_step_per_iteration == 0

    @property
    def is_lr_scheduler_step(self) -> bool:
        return self.is_optimizer_step

    @property
    def is_evaluation_step(self) -> bool:
        return self.step % self.config.evaluation_interval == 0


class Callback:
    def on_compute_loss_end(self, trainer): ...
    def on_backward_end(self, trainer): ...
    def on_optimizer_step_begin(self, trainer): ...
    def on_optimizer_step_end(self, trainer): ...
    def on_batch_end(self, trainer): ...
    def on_epoch_end(self, trainer): ...


class ClockCallback(Callback):
    def on_batch_end(self, trainer):
        trainer.clock.step += 1

    def on_optimizer_step_end(self, trainer):
        trainer.clock.iteration += 1

    def on_epoch_end(self, trainer):
        trainer.clock.epoch += 1


@dataclass
class LossLogger(Callback):
    losses: List[float] = field(default_factory=list)

    def on_compute_loss_end(self, trainer):
        self.losses.append(trainer.loss.detach().item())

    def on_epoch_end(self, trainer):
        print("epoch", trainer.clock.epoch, "mean loss %.4f" % (sum(self.losses) / len(self.losses)))
        self.losses.clear()


class GradientNormClipping(Callback):
    def __init__(self, max_norm=1.0):
        self.max_norm = max_norm

    def on_optimizer_step_begin(self, trainer):
        nn.utils.clip_grad_norm_(trainer.model.parameters(), self.max_norm)


class Trainer:
    def __init__(self, config: TrainingConfig, dataset: List[Batch]):
        self.config = config
        self.dataset = dataset
        self.model = nn.Sequential(nn.Linear(6, 16), nn.GELU(), nn.Linear(16, 3))
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=config.learning_rate)
        self.lr_scheduler = torch.optim.lr_scheduler.StepLR(self.optimizer, step_size=2, gamma=0.9)
        self.clock = TrainingClock(len(dataset), config)
        self.callbacks: List[Callback] = [ClockCallback(), LossLogger(), GradientNormClipping()]
        self.loss = None

    def _call_callbacks(self, event_name: str) -> None:
        for callback in self.callbacks:
            getattr(callback, event_name)(self)

    def compute_loss(self, batch: Batch) -> torch.Tensor:
        return F.cross_entropy(self.model(batch.x), batch.y)

    def evaluate(self) -> None:
        self.model.eval()
        with torch.no_grad():
            acc = np.mean([(self.model(b.x).argmax(-1) == b.y).float().mean().item() for b in self.dataset])
        self.model.train()
        print("eval step", self.clock.step, "acc %.3f" % acc)

    def backward(self) -> None:
        scaled_loss = self.loss / self.clock.num_step_per_iteration
        backward(tensors=scaled_loss)
        self._call_callbacks(event_name="on_backward_end")
        if self.clock.is_optimizer_step:
            self._call_callbacks(event_name="on_optimizer_step_begin")
            self.optimizer.step()
            self.optimizer.zero_grad()
            self._call_callbacks(event_name="on_optimizer_step_end")
        if self.clock.is_lr_scheduler_step:
            self.lr_scheduler.step()
        if self.clock.is_evaluation_step:
            self.evaluate()

    def step(self, batch: Batch) -> None:
        loss = self.compute_loss(batch=batch)
        self.loss = loss
        self._call_callbacks(event_name="on_compute_loss_end")
        self.backward()

    def epoch(self) -> None:
        for batch in self.dataset:
            self._call_callbacks(event_name="on_batch_end")
            self.step(batch)

    def train(self) -> None:
        self.model.train()
        self.optimizer.zero_grad()
        for _ in range(self.config.num_epochs):
            self.epoch()
            self._call_callbacks(event_name="on_epoch_end")


def make_dataset(n_batches=6, batch_size=4):
    data = []
    for _ in range(n_batches):
        x = torch.randn(batch_size, 6)
        y = (x[:, 0] > 0).long() + (x[:, 1] > 0.5).long()
        data.append(Batch(x=x, y=y))
    return data


def main():
    trainer = Trainer(TrainingConfig(), make_dataset())
    trainer.train()


if __name__ == "__main__":
    main()
