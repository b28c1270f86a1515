# corpus: ignite-style Engine whose update_fn accumulates gradients over accumulation_steps (loss scaled, step then zero_grad every N iterations) and returns loss.item() to the logging handlers
# source: https://github.com/pytorch/ignite/issues/583
from collections import defaultdict

import torch
import torch.nn as nn


class State:
    def __init__(self):
        self.iteration = 0
        self.epoch = 0
        self.output = None


class Engine:
    def __init__(self, process_function):
        self._process_function = process_function
        self._handlers = defaultdict(list)
        self.state = State()

    def add_event_handler(self, event, handler, *args):
        self._handlers[event].append((handler, args))

    def _fire(self, event):
        for handler, args in self._handlers[event]:
            handler(self, *args)

    def run(self, data, max_epochs=1):
        for _ in range(max_epochs):
            self.state.epoch += 1
            for batch in data:
                self.state.iteration += 1
                self.state.output = self._process_function(self, batch)
                self._fire("ITERATION_COMPLETED")
            self._fire("EPOCH_COMPLETED")
        return self.state


def prepare_batch(batch, device=None, non_blocking=False):
    x, y = batch
    return x.to(device), y.to(device)


def create_trainer(model, optimizer, criterion, accumulation_steps=4, device="cpu"):
    def update_fn(engine, batch):
        model.train()
        x, y = prepare_batch(batch, device=device)
        y_pred = model(x)
        loss = criterion(y_pred, y) / accumulation_steps
        loss.backward()

        if engine.state.iteration % accumulation_steps == 0:
            optimizer.step()
            optimizer.zero_grad()

        return loss.item()

    return Engine(update_fn)


class RunningAverage:
    def __init__(self, alpha=0.9):
        self.alpha, self.value, self.history = alpha, None, []

    def __call__(self, engine):
        out = engine.state.output
        self.value = out if self.value is None else self.alpha * self.value + (1 - self.alpha) * out
        self.history.append(self.value)


def log_epoch(engine, avg):
    print(f"Epoch {engine.state.epoch}: running loss {avg.value:.4f} after {engine.state.iteration} iterations")


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 3))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    criterion = nn.CrossEntropyLoss()
    data = [(torch.randn(8, 10), torch.randint(0, 3, (8,))) for _ in range(8)]
    trainer = create_trainer(model, optimizer, criterion, accumulation_steps=4)
    avg = RunningAverage()
    trainer.add_event_handler("ITERATION_COMPLETED", avg)
    trainer.add_event_handler("EPOCH_COMPLETED", log_epoch, avg)
    trainer.run(data, max_epochs=3)


if __name__ == "__main__":
    main()
