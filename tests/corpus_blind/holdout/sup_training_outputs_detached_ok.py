# corpus: mini Lightning-style loop backprops training_step's loss, then stores recursive_detach(output) for training_epoch_end (correct)
# source: https://github.com/Lightning-AI/pytorch-lightning/issues/1510
import torch
import torch.nn as nn
import torch.nn.functional as F


def recursive_detach(in_dict):
    out_dict = {}
    for k, v in in_dict.items():
        if isinstance(v, dict):
            out_dict[k] = recursive_detach(v)
        elif isinstance(v, torch.Tensor):
            out_dict[k] = v.detach()
        else:
            out_dict[k] = v
    return out_dict


class LitClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = nn.Linear(12, 24)
        self.l2 = nn.Linear(24, 5)
        self.epoch_metrics = []

    def forward(self, x):
        return self.l2(torch.relu(self.l1(x)))

    def training_step(self, batch, batch_idx):
        x, y = batch
        logits = self(x)
        loss = F.cross_entropy(logits, y)
        acc = (logits.argmax(1) == y).float().mean()
        return {"loss": loss, "log": {"train_loss": loss, "train_acc": acc}}

    def training_epoch_end(self, outputs):
        avg_loss = torch.stack([o["loss"] for o in outputs]).mean()
        avg_acc = torch.stack([o["log"]["train_acc"] for o in outputs]).mean()
        self.epoch_metrics.append({"loss": avg_loss.item(), "acc": avg_acc.item()})

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)


class MiniTrainer:
    def __init__(self, max_epochs=2):
        self.max_epochs = max_epochs
        self.last_outputs = []

    def fit(self, model, train_dataloader):
        optimizer = model.configure_optimizers()
        for epoch in range(self.max_epochs):
            outputs = []
            for batch_idx, batch in enumerate(train_dataloader):
                output = model.training_step(batch, batch_idx)
                optimizer.zero_grad()
                output["loss"].backward()
                optimizer.step()
                outputs.append(recursive_detach(output))
            model.training_epoch_end(outputs)
            self.last_outputs = outputs


def main():
    torch.manual_seed(0)
    model = LitClassifier()
    trainer = MiniTrainer()
    trainer.fit(model, [(torch.randn(8, 12), torch.randint(0, 5, (8,))) for _ in range(4)])
    return model, trainer


if __name__ == "__main__":
    model, trainer = main()
    assert all(p.grad is not None for p in model.parameters())
    assert all(o["loss"].grad_fn is None and o["log"]["train_loss"].grad_fn is None for o in trainer.last_outputs)
    assert len(model.epoch_metrics) == 2
