# corpus: multi-task trainer backprops the seg loss with retain_graph=True to log per-task grad norms, then the depth loss, then one step (correct)
# source: https://discuss.pytorch.org/t/multi-task-learning-whats-the-difference-between-jointly-backward-and-backward-with-retain-graph-true/28162
import torch
import torch.nn as nn
import torch.nn.functional as F


class MultiTaskNet(nn.Module):
    def __init__(self, d_in=10, d_shared=24):
        super().__init__()
        self.shared = nn.Sequential(nn.Linear(d_in, d_shared), nn.ReLU(), nn.Linear(d_shared, d_shared), nn.ReLU())
        self.heads = nn.ModuleDict({"seg": nn.Linear(d_shared, 3), "depth": nn.Linear(d_shared, 1)})

    def forward(self, x):
        z = self.shared(x)
        return {task: head(z) for task, head in self.heads.items()}


class MTLTrainer:
    def __init__(self, model, task_weights, lr=1e-3):
        self.model = model
        self.task_weights = task_weights
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)
        self.grad_norm_log = {"seg": [], "depth": []}

    def shared_grad_norm(self):
        return torch.sqrt(sum((p.grad ** 2).sum() for p in self.model.shared.parameters())).item()

    def compute_losses(self, outputs, batch):
        return {
            "seg": self.task_weights["seg"] * F.cross_entropy(outputs["seg"], batch["seg"]),
            "depth": self.task_weights["depth"] * F.l1_loss(outputs["depth"], batch["depth"]),
        }

    def train_step(self, batch):
        self.optimizer.zero_grad()
        outputs = self.model(batch["x"])
        losses = self.compute_losses(outputs, batch)

        losses["seg"].backward(retain_graph=True)
        seg_norm = self.shared_grad_norm()
        losses["depth"].backward()
        self.grad_norm_log["seg"].append(seg_norm)
        self.grad_norm_log["depth"].append(self.shared_grad_norm() - seg_norm)

        self.optimizer.step()
        return {k: v.item() for k, v in losses.items()}


def main():
    torch.manual_seed(0)
    model = MultiTaskNet()
    trainer = MTLTrainer(model, {"seg": 1.0, "depth": 0.5})
    batches = [{"x": torch.randn(8, 10), "seg": torch.randint(0, 3, (8,)), "depth": torch.rand(8, 1)} for _ in range(4)]
    for batch in batches:
        logs = trainer.train_step(batch)
    return trainer, batches[-1]


if __name__ == "__main__":
    trainer, batch = main()
    model = trainer.model
    assert all(p.grad is not None for p in model.parameters())
    # separate backward with retain_graph gives the same gradient as one joint backward
    model.zero_grad()
    l = trainer.compute_losses(model(batch["x"]), batch)
    l["seg"].backward(retain_graph=True)
    l["depth"].backward()
    sep = [p.grad.clone() for p in model.parameters()]
    model.zero_grad()
    l = trainer.compute_losses(model(batch["x"]), batch)
    (l["seg"] + l["depth"]).backward()
    joint = [p.grad.clone() for p in model.parameters()]
    assert all(torch.allclose(a, b, atol=1e-6) for a, b in zip(sep, joint))
