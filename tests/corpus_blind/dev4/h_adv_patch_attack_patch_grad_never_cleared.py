# corpus: adversarial patch attack (ART/armory style): _train_step zeroes the estimator model's gradients but never the patch's own .grad, so every loss.backward() adds onto the previous iterations' patch gradient and the signed PGD step follows the running sum instead of the current gradient
# source: https://github.com/twosixlabs/armory/issues/1950
from dataclasses import dataclass
from typing import Tuple

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class PatchConfig:
    patch_shape: Tuple[int, int, int] = (3, 4, 4)
    learning_rate: float = 0.05
    max_iter: int = 6
    clip_values: Tuple[float, float] = (0.0, 1.0)


class PyTorchClassifier:
    """Minimal estimator wrapper: holds the model and the input clip range."""

    def __init__(self, model: nn.Module, clip_values):
        self.model = model
        self.clip_values = clip_values

    def predict_logits(self, x):
        return self.model(x)


class AdversarialPatchPyTorch:
    def __init__(self, estimator: PyTorchClassifier, config: PatchConfig):
        self.estimator = estimator
        self.patch_shape = config.patch_shape
        self.learning_rate = config.learning_rate
        self.max_iter = config.max_iter
        mean_value = (estimator.clip_values[1] - estimator.clip_values[0]) / 2.0 + estimator.clip_values[0]
        self._initial_value = torch.ones(self.patch_shape) * mean_value
        self._patch = self._initial_value.clone().requires_grad_(True)
        self.loss_history = []

    def _random_overlay(self, images, patch, location=(2, 2)):
        _, _, h, w = images.shape
        ph, pw = patch.shape[1:]
        mask = torch.zeros_like(images)
        mask[:, :, location[0]:location[0] + ph, location[1]:location[1] + pw] = 1.0
        padded = F.pad(patch, (location[1], w - pw - location[1], location[0], h - ph - location[0]))
        return images * (1 - mask) + padded.unsqueeze(0) * mask

    def _loss(self, images, target):
        patched_input = self._random_overlay(images, self._patch)
        patched_input = torch.clamp(patched_input, self.estimator.clip_values[0], self.estimator.clip_values[1])
        logits = self.estimator.predict_logits(patched_input)
        return F.cross_entropy(logits, target)

    def _train_step(self, images, target):
        self.estimator.model.zero_grad()
        loss = self._loss(images, target)
        loss.backward(retain_graph=True)  # expect: GG201

        gradients = self._patch.grad.sign() * self.learning_rate  # also: GG201
        with torch.no_grad():
            self._patch[:] = torch.clamp(
                self._patch + gradients, min=self.estimator.clip_values[0], max=self.estimator.clip_values[1]
            )
        return loss

    def generate(self, x, y):
        for i_iter in range(self.max_iter):
            loss = self._train_step(images=x, target=y)
            self.loss_history.append(loss.item())
        return self._patch.detach().clone()


def build_classifier():
    return nn.Sequential(
        nn.Conv2d(3, 6, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(2), nn.Flatten(), nn.Linear(24, 4)
    )


def main():
    torch.manual_seed(0)
    model = build_classifier().eval()
    estimator = PyTorchClassifier(model, clip_values=(0.0, 1.0))
    attack = AdversarialPatchPyTorch(estimator, PatchConfig())
    x = torch.rand(4, 3, 8, 8)
    y = torch.tensor([0, 1, 2, 3])
    patch = attack.generate(x, y)
    print("patch mean", patch.mean().item(), "losses", [round(v, 4) for v in attack.loss_history])


if __name__ == "__main__":
    main()
