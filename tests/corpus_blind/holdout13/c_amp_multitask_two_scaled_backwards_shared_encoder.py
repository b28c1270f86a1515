# corpus: mixed-precision multi-task trainer (autocast + GradScaler, the apex "multiple losses" pattern): a shared encoder feeds a classification head and a regression head, and each task loss gets its own scaler.scale(loss).backward(), so the second backward runs into encoder buffers the first one freed
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/NVIDIA/apex/issues/56
import torch
import torch.nn as nn
import torch.nn.functional as F


class SharedEncoder(nn.Module):
    def __init__(self, in_dim=20, hidden=64):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(in_dim, hidden), nn.GELU(), nn.LayerNorm(hidden),
                                 nn.Linear(hidden, hidden), nn.GELU())

    def forward(self, x):
        return self.net(x)


class MultiTaskModel(nn.Module):
    def __init__(self, in_dim=20, hidden=64, n_classes=4):
        super().__init__()
        self.encoder = SharedEncoder(in_dim, hidden)
        self.heads = nn.ModuleDict({"cls": nn.Linear(hidden, n_classes), "reg": nn.Linear(hidden, 1)})

    def forward(self, x):
        h = self.encoder(x)
        return {name: head(h) for name, head in self.heads.items()}


class AmpTrainer:
    def __init__(self, model, lr=1e-3, loss_weights=None):
        self.model = model
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
        self.scaler = torch.amp.GradScaler("cpu")
        self.loss_weights = loss_weights or {"cls": 1.0, "reg": 0.5}

    def compute_losses(self, outputs, batch):
        return {
            "cls": F.cross_entropy(outputs["cls"].float(), batch["label"]),
            "reg": F.mse_loss(outputs["reg"].float().squeeze(-1), batch["target"]),
        }

    def train_step(self, batch):
        self.model.train()
        with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
            outputs = self.model(batch["x"])
            losses = self.compute_losses(outputs, batch)
        self.optimizer.zero_grad()
        loss_cls = losses["cls"] * self.loss_weights["cls"]
        loss_reg = losses["reg"] * self.loss_weights["reg"]
        self.scaler.scale(loss_cls).backward()  # expect: GG102
        self.scaler.scale(loss_reg).backward()  # also: GG102
        self.scaler.unscale_(self.optimizer)
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
        self.scaler.step(self.optimizer)
        self.scaler.update()
        return {k: v.item() for k, v in losses.items()}

    def fit(self, loader, epochs=2):
        for epoch in range(epochs):
            logs = [self.train_step(batch) for batch in loader]
            mean = {k: sum(l[k] for l in logs) / len(logs) for k in logs[0]}
            print(f"epoch {epoch}: " + " ".join(f"{k}={v:.4f}" for k, v in mean.items()))


def make_loader(n_batches=5, batch_size=16, in_dim=20, n_classes=4):
    g = torch.Generator().manual_seed(0)
    loader = []
    for _ in range(n_batches):
        x = torch.randn(batch_size, in_dim, generator=g)
        loader.append({"x": x,
                       "label": torch.randint(0, n_classes, (batch_size,), generator=g),
                       "target": x[:, :3].sum(dim=1)})
    return loader


def main():
    torch.manual_seed(0)
    trainer = AmpTrainer(MultiTaskModel())
    trainer.fit(make_loader())


if __name__ == "__main__":
    main()
