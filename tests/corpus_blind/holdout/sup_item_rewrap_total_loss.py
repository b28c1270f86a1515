# corpus: engine's reduce_losses helper rebuilds the weighted total from .item() values with torch.tensor(), then backward is called on it
# raises: RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
# source: https://deepinout.com/pytorch/pytorch-questions/75_pytorch_runtime_error_element_0_of_tensors_does_not_require_grad_and_does_not_have_a_grad_fn.html
from collections import defaultdict

import torch
import torch.nn as nn
import torch.nn.functional as F


class KeypointNet(nn.Module):
    def __init__(self, n_kpts=5):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(32, 64), nn.ReLU())
        self.heads = nn.ModuleDict({
            "heatmap": nn.Linear(64, n_kpts),
            "offset": nn.Linear(64, 2 * n_kpts),
            "visible": nn.Linear(64, n_kpts),
        })

    def forward(self, x):
        feats = self.backbone(x)
        return {name: head(feats) for name, head in self.heads.items()}


class KeypointCriterion(nn.Module):
    def forward(self, outputs, targets):
        return {
            "heatmap": F.mse_loss(outputs["heatmap"], targets["heatmap"]),
            "offset": F.l1_loss(outputs["offset"], targets["offset"]),
            "visible": F.binary_cross_entropy_with_logits(outputs["visible"], targets["visible"]),
        }


def reduce_losses(loss_dict, weights):
    """Weighted sum of the loss terms, returned as a tensor plus a float dict for logging."""
    log_vars = {k: v.item() for k, v in loss_dict.items()}
    total = torch.tensor(sum(weights[k] * log_vars[k] for k in log_vars))  # expect: GG106
    log_vars["total"] = total.item()
    return total, log_vars


class Engine:
    def __init__(self, model, criterion, weights, lr=1e-3):
        self.model = model
        self.criterion = criterion
        self.weights = weights
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)
        self.meters = defaultdict(list)

    def train_one_step(self, images, targets):
        outputs = self.model(images)
        loss_dict = self.criterion(outputs, targets)
        total, log_vars = reduce_losses(loss_dict, self.weights)
        self.optimizer.zero_grad()
        total.backward()  # also: GG106
        self.optimizer.step()
        for k, v in log_vars.items():
            self.meters[k].append(v)

    def train_one_epoch(self, loader):
        self.model.train()
        for images, targets in loader:
            self.train_one_step(images, targets)
        return {k: sum(v) / len(v) for k, v in self.meters.items()}


def main():
    torch.manual_seed(0)
    loader = [
        (
            torch.randn(4, 32),
            {"heatmap": torch.rand(4, 5), "offset": torch.randn(4, 10), "visible": torch.rand(4, 5).round()},
        )
        for _ in range(3)
    ]
    engine = Engine(KeypointNet(), KeypointCriterion(), {"heatmap": 1.0, "offset": 0.5, "visible": 0.2})
    print(engine.train_one_epoch(loader))


if __name__ == "__main__":
    main()
