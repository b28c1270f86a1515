# corpus: adversarial-texture attack class against a box-regressing tracker; each _train_step zeroes the estimator's gradients but never the patch's, so patch.grad accumulates over iterations and the signed step follows the running sum
# source: https://github.com/Trusted-AI/adversarial-robustness-toolbox/pull/1724
import numpy as np
import torch
import torch.nn as nn


class TinyTracker(nn.Module):
    """Predicts one box [x1, y1, x2, y2] per frame."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(4))
        self.box = nn.Linear(8 * 16, 4)

    def forward(self, frames):
        return self.box(self.features(frames).flatten(1))


class Estimator:
    def __init__(self, model, clip_values=(0.0, 1.0)):
        self.model = model
        self.clip_values = clip_values

    def predict(self, videos):
        nb, nf = videos.shape[:2]
        boxes = self.model(videos.flatten(0, 1).permute(0, 3, 1, 2))
        return [{"boxes": b} for b in boxes.view(nb, nf, 4)]


class AdversarialTexturePyTorch:
    def __init__(self, estimator, patch_height, patch_width, x_min, y_min, step_size=1 / 255, max_iter=6):
        self.estimator = estimator
        self.patch_height, self.patch_width = patch_height, patch_width
        self.x_min, self.y_min = x_min, y_min
        self.step_size, self.max_iter = step_size, max_iter
        initial_value = np.ones((patch_height, patch_width, 3)) * 0.5
        self._patch = torch.tensor(initial_value, requires_grad=True, dtype=torch.float32)

    def _apply_texture(self, videos, patch):
        mask = torch.zeros_like(videos)
        mask[:, :, self.x_min:self.x_min + self.patch_height, self.y_min:self.y_min + self.patch_width, :] = 1.0
        padded = torch.zeros(videos.shape[2:])
        padded = padded.index_put((torch.arange(self.x_min, self.x_min + self.patch_height).view(-1, 1),
                                   torch.arange(self.y_min, self.y_min + self.patch_width).view(1, -1)), patch)
        return videos * (1 - mask) + padded * mask

    def _loss(self, videos, target):
        patched = torch.clamp(self._apply_texture(videos, self._patch), *self.estimator.clip_values)
        y_pred = self.estimator.predict(patched)
        loss = nn.L1Loss(reduction="sum")(y_pred[0]["boxes"], target[0]["boxes"])
        for i in range(1, len(y_pred)):
            loss = loss + nn.L1Loss(reduction="sum")(y_pred[i]["boxes"], target[i]["boxes"])
        return loss

    def _train_step(self, videos, target):
        self.estimator.model.zero_grad()  # also: GG201
        loss = self._loss(videos, target)
        loss.backward()  # expect: GG201
        if self._patch.grad is None:
            raise ValueError("Gradient term in PyTorch model is `None`.")
        gradients = self._patch.grad.sign() * self.step_size
        with torch.no_grad():
            self._patch[:] = torch.clamp(self._patch + gradients, *self.estimator.clip_values)
        return loss

    def generate(self, x, y):
        for i_max_iter in range(self.max_iter):
            loss = self._train_step(x, y)
            print(f"iter {i_max_iter}: L1 box loss {loss.item():.3f}")
        return self._patch.detach().numpy()


if __name__ == "__main__":
    torch.manual_seed(0)
    torch.set_num_threads(1)  # tiny tensors: avoid thread overhead
    videos = torch.rand(2, 3, 12, 12, 3)
    targets = [{"boxes": torch.tensor([[0.0, 0.0, 1.0, 1.0]] * 3)} for _ in range(2)]
    attack = AdversarialTexturePyTorch(Estimator(TinyTracker()), patch_height=4, patch_width=4, x_min=2, y_min=3)
    patch = attack.generate(videos, targets)
    print("patch range", patch.min(), patch.max())
