# corpus: trainer whose model returns a tuple of losses (from one shared-encoder forward) calls backward on each loss separately, so the second backward hits the freed encoder graph
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/mosaicml/composer/pull/1240
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


def ensure_tuple(x):
    return x if isinstance(x, (tuple, list)) else (x,)


class MultiTaskModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(10, 32), nn.GELU(), nn.Linear(32, 32), nn.GELU())
        self.heads = nn.ModuleDict({"cls": nn.Linear(32, 4), "reg": nn.Linear(32, 1)})

    def forward(self, batch):
        x, _, _ = batch
        z = self.encoder(x)
        return {name: head(z) for name, head in self.heads.items()}

    def loss(self, outputs, batch):
        _, y_cls, y_reg = batch
        return (
            F.cross_entropy(outputs["cls"], y_cls),  # also: GG102
            F.mse_loss(outputs["reg"].squeeze(1), y_reg),
        )


class Trainer:
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer
        self.total_loss_log = []

    def _train_microbatch(self, batch):
        outputs = self.model(batch)
        losses = self.model.loss(outputs, batch)
        total = 0.0
        for loss in ensure_tuple(losses):
            loss.backward()  # expect: GG102
            total += loss.item()
        return total

    def fit(self, batches):
        self.model.train()
        for batch in batches:
            self.optimizer.zero_grad()
            self.total_loss_log.append(self._train_microbatch(batch))
            self.optimizer.step()


def main():
    model = MultiTaskModel()
    trainer = Trainer(model, torch.optim.AdamW(model.parameters(), lr=1e-3))
    batches = [(torch.randn(8, 10), torch.randint(0, 4, (8,)), torch.randn(8)) for _ in range(2)]
    trainer.fit(batches)


if __name__ == "__main__":
    main()
