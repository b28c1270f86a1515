# corpus: stoke-style training wrapper over a DeepSpeed-like engine; with a list of loss functions Stoke.backward walks the losses and asks the runner for retain_graph on all but the last, but the engine's backward(loss) never forwards retain_graph, so the second loss's backward through the shared forward raises
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/fidelity/stoke/issues/4
import random
from typing import List, Union

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

random.seed(0)
np.random.seed(0)
torch.manual_seed(0)


class DeepSpeedEngine(nn.Module):
    """Wraps the user module like deepspeed.initialize() does."""

    def __init__(self, module, optimizer, gradient_accumulation_steps=1):
        super().__init__()
        self.module = module
        self.optimizer = optimizer
        self.gradient_accumulation_steps = gradient_accumulation_steps
        self.micro_steps = 0

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    def backward(self, loss, allreduce_gradients=True, release_loss=False):
        if self.gradient_accumulation_steps > 1:
            loss = loss / self.gradient_accumulation_steps
        loss.backward()  # expect: GG102
        self.micro_steps += 1
        return loss

    def is_gradient_accumulation_boundary(self):
        return self.micro_steps % self.gradient_accumulation_steps == 0

    def step(self):
        if self.is_gradient_accumulation_boundary():
            self.optimizer.step()
            self.optimizer.zero_grad()


class DeepspeedRunner:
    def backward_call(self, loss, model, retain_graph=False):
        model.backward(loss)

    def step_call(self, model, optimizer):
        model.step()


class Stoke:
    def __init__(self, model, optimizer, loss, grad_accum_steps=1):
        self._model = DeepSpeedEngine(model, optimizer, grad_accum_steps)
        self._loss = loss
        self._runner = DeepspeedRunner()
        self._grad_accum_counter = 0
        self._optimizer = optimizer

    @property
    def model_access(self):
        return self._model

    def model(self, *args, **kwargs):
        return self._model(*args, **kwargs)

    def loss(self, *args, **kwargs) -> Union[torch.Tensor, List[torch.Tensor]]:
        if isinstance(self._loss, (list, tuple)):
            return type(self._loss)(fn(*args, **kwargs) for fn in self._loss)
        return self._loss(*args, **kwargs)

    def backward(self, loss: Union[torch.Tensor, List[torch.Tensor]]):
        self._grad_accum_counter += 1
        if isinstance(loss, (list, tuple)):
            for idx, val in enumerate(loss):
                self._runner.backward_call(
                    loss=val, model=self.model_access, retain_graph=(idx != len(loss) - 1))
        else:
            self._runner.backward_call(loss=loss, model=self.model_access)

    def step(self):
        self._runner.step_call(model=self.model_access, optimizer=self._optimizer)

    def detach_and_sync_loss(self, loss):
        if isinstance(loss, (list, tuple)):
            return type(loss)(val.item() for val in loss)
        return loss.item()


class SharedBottomNet(nn.Module):
    def __init__(self, in_dim=10, hidden=16):
        super().__init__()
        self.shared = nn.Sequential(nn.Linear(in_dim, hidden), nn.ReLU())
        self.cls_tower = nn.Linear(hidden, 3)
        self.reg_tower = nn.Linear(hidden, 1)

    def forward(self, x):
        h = self.shared(x)
        return {"cls": self.cls_tower(h), "reg": self.reg_tower(h).squeeze(-1)}


def ce_loss(out, target):
    return F.cross_entropy(out["cls"], target["cls"])


def mse_loss(out, target):
    return F.mse_loss(out["reg"], target["reg"])


def train(stoke_obj, loader, epochs=2):
    for epoch in range(epochs):
        for x, y in loader:
            out = stoke_obj.model(x)
            loss = stoke_obj.loss(out, y)
            stoke_obj.backward(loss)
            stoke_obj.step()
            print("epoch", epoch, "losses", [round(v, 4) for v in stoke_obj.detach_and_sync_loss(loss)])


def main():
    model = SharedBottomNet()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    stoke_obj = Stoke(model, optimizer, loss=[ce_loss, mse_loss])
    loader = [(torch.randn(8, 10), {"cls": torch.randint(0, 3, (8,)), "reg": torch.randn(8)}) for _ in range(3)]
    train(stoke_obj, loader)


if __name__ == "__main__":
    main()
