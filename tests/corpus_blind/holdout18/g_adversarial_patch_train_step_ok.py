# corpus: ART-style adversarial patch attack after the fix requested in the report: each train step rebuilds the patched batch, calls loss.backward() without retain_graph, steps Adam on the patch leaf and clamps the patch in place under torch.no_grad(); nothing is carried between steps.
# source: https://github.com/Trusted-AI/adversarial-robustness-toolbox/issues/2220
from typing import Optional, Tuple

import numpy as np
import torch
import torch.nn as nn


class AdversarialPatchPyTorch:
    def __init__(self, classifier: nn.Module, patch_shape=(3, 8, 8), image_shape=(3, 16, 16), learning_rate=0.1,
                 max_iter=3, batch_size=4, clip_values=(0.0, 1.0), targeted=True):
        self.classifier = classifier
        self.patch_shape = patch_shape
        self.image_shape = image_shape
        self.max_iter = max_iter
        self.batch_size = batch_size
        self.clip_values = clip_values
        self.targeted = targeted
        mean_value = (clip_values[1] - clip_values[0]) / 2.0 + clip_values[0]
        self._initial_value = np.ones(self.patch_shape) * mean_value
        self._patch = torch.tensor(self._initial_value, requires_grad=True, dtype=torch.float32)
        self._optimizer = torch.optim.Adam([self._patch], lr=learning_rate)

    def _train_step(self, images: torch.Tensor, target: torch.Tensor, mask: Optional[torch.Tensor] = None):
        self._optimizer.zero_grad()
        loss = self._loss(images, target, mask)
        loss.backward()
        self._optimizer.step()
        with torch.no_grad():
            self._patch[:] = torch.clamp(self._patch, min=self.clip_values[0], max=self.clip_values[1])
        return loss

    def _random_overlay(self, images: torch.Tensor, patch: torch.Tensor) -> torch.Tensor:
        nb_samples = images.shape[0]
        _, h, w = self.image_shape
        ph, pw = self.patch_shape[1], self.patch_shape[2]
        pad = (0, w - pw, 0, h - ph)
        image_mask = torch.nn.functional.pad(torch.ones(nb_samples, *self.patch_shape), pad)
        padded_patch = torch.nn.functional.pad(torch.stack([patch] * nb_samples), pad)
        image_mask_list, padded_patch_list = [], []
        for i_sample in range(nb_samples):
            x_shift = int(np.random.randint(0, w - pw + 1))
            y_shift = int(np.random.randint(0, h - ph + 1))
            image_mask_list.append(torch.roll(image_mask[i_sample], shifts=(y_shift, x_shift), dims=(1, 2)))
            padded_patch_list.append(torch.roll(padded_patch[i_sample], shifts=(y_shift, x_shift), dims=(1, 2)))
        image_mask = torch.stack(image_mask_list, dim=0)
        padded_patch = torch.stack(padded_patch_list, dim=0)
        inverted_mask = torch.ones_like(image_mask) - image_mask
        return images * inverted_mask + padded_patch * image_mask

    def _predictions(self, images, mask):
        patched_input = self._random_overlay(images, self._patch)
        patched_input = torch.clamp(patched_input, min=self.clip_values[0], max=self.clip_values[1])
        return self.classifier(patched_input)

    def _loss(self, images, target, mask):
        predictions = self._predictions(images, mask)
        loss = torch.nn.functional.cross_entropy(input=predictions, target=torch.argmax(target, dim=1), reduction="mean")
        if not self.targeted:
            loss = -loss
        return loss

    def generate(self, x: np.ndarray, y: np.ndarray) -> Tuple[np.ndarray, float]:
        dataset = torch.utils.data.TensorDataset(torch.Tensor(x), torch.Tensor(y))
        data_loader = torch.utils.data.DataLoader(dataset=dataset, batch_size=self.batch_size, shuffle=True)
        last_loss = 0.0
        for i_iter in range(self.max_iter):
            for images, target in data_loader:
                last_loss = self._train_step(images=images, target=target, mask=None).item()
        return self._patch.detach().cpu().numpy(), last_loss


def main():
    torch.manual_seed(0)
    np.random.seed(0)
    classifier = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                               nn.Linear(8, 5))
    classifier.requires_grad_(False)
    x = np.random.rand(8, 3, 16, 16).astype(np.float32)
    y = np.eye(5)[np.full(8, 2)].astype(np.float32)
    attack = AdversarialPatchPyTorch(classifier)
    patch, loss = attack.generate(x, y)
    print(patch.shape, patch.min(), patch.max(), loss)


if __name__ == "__main__":
    main()
