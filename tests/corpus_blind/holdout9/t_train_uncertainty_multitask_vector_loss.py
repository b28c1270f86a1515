# corpus: multi-task trainer with homoscedastic-uncertainty weighting stacks the per-task losses and calls backward on the resulting 3-element vector instead of its sum
# raises: RuntimeError: grad can be implicitly created only for scalar outputs
# source: https://github.com/ywatanabe1989/custom_losses_pytorch/issues/3
import torch
import torch.nn as nn
import torch.nn.functional as F


class MultiTaskLoss(nn.Module):
    """Kendall et al. uncertainty weighting: exp(-s_i) * L_i + s_i per task."""

    def __init__(self, n_tasks):
        super().__init__()
        self.log_vars = nn.Parameter(torch.zeros(n_tasks))

    def forward(self, losses):
        stacked = torch.stack(losses)
        return torch.exp(-self.log_vars) * stacked + self.log_vars


class SharedNet(nn.Module):
    def __init__(self, in_dim=10):
        super().__init__()
        self.shared = nn.Sequential(nn.Linear(in_dim, 32), nn.ReLU())
        self.cls_head = nn.Linear(32, 4)
        self.reg_head = nn.Linear(32, 1)
        self.aux_head = nn.Linear(32, 2)

    def forward(self, x):
        h = self.shared(x)
        return {"cls": self.cls_head(h), "reg": self.reg_head(h).squeeze(-1), "aux": self.aux_head(h)}


class MTLTrainer:
    def __init__(self, model, mtl_loss, lr=1e-3):
        self.model = model
        self.mtl_loss = mtl_loss
        self.optimizer = torch.optim.Adam(list(model.parameters()) + list(mtl_loss.parameters()), lr=lr)

    def task_losses(self, out, batch):
        return [
            F.cross_entropy(out["cls"], batch["cls"]),
            F.mse_loss(out["reg"], batch["reg"]),
            F.cross_entropy(out["aux"], batch["aux"]),
        ]

    def train_step(self, batch):
        self.model.train()
        out = self.model(batch["x"])
        multitaskloss = self.mtl_loss(self.task_losses(out, batch))
        self.optimizer.zero_grad()
        multitaskloss.backward()  # expect: GG109
        self.optimizer.step()
        return multitaskloss.detach()


def main():
    torch.manual_seed(0)
    trainer = MTLTrainer(SharedNet(), MultiTaskLoss(3))
    for step in range(3):
        batch = {"x": torch.randn(8, 10), "cls": torch.randint(0, 4, (8,)), "reg": torch.randn(8),
                 "aux": torch.randint(0, 2, (8,))}
        print(step, trainer.train_step(batch))


if __name__ == "__main__":
    main()
