# corpus: Temporal forecasting trainer (pytorch-forecasting style LightningModule-like shape) whose training_step reuses the predict() helper written for inference; predict() runs the network under torch.no_grad(), so the quantile loss built from its output has no grad_fn and backward fails
# raises: RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
# source: https://github.com/sktime/pytorch-forecasting/issues/1962
from dataclasses import dataclass, field
from typing import Dict, List

import torch
import torch.nn as nn


class QuantileLoss(nn.Module):
    def __init__(self, quantiles=(0.1, 0.5, 0.9)):
        super().__init__()
        self.quantiles = quantiles

    def forward(self, y_pred, target):
        losses = []
        for i, q in enumerate(self.quantiles):
            errors = target - y_pred[..., i]
            losses.append(torch.max((q - 1) * errors, q * errors).unsqueeze(-1))
        return torch.cat(losses, dim=-1).mean()


class TinyTemporalModel(nn.Module):
    def __init__(self, n_features, hidden, horizon, n_quantiles):
        super().__init__()
        self.horizon, self.n_quantiles = horizon, n_quantiles
        self.encoder = nn.LSTM(n_features, hidden, batch_first=True)
        self.decoder = nn.Linear(hidden, horizon * n_quantiles)

    def forward(self, x):
        _, (h, _) = self.encoder(x)
        out = self.decoder(h[-1])
        return out.view(-1, self.horizon, self.n_quantiles)


@dataclass
class History:
    train_loss: List[float] = field(default_factory=list)
    val_loss: List[float] = field(default_factory=list)


class ForecastTrainer:
    def __init__(self, model, lr=1e-3):
        self.model = model
        self.loss = QuantileLoss()
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)
        self.history = History()

    def predict(self, x) -> torch.Tensor:
        self.model.eval()
        with torch.no_grad():
            return self.model(x)

    def training_step(self, batch: Dict[str, torch.Tensor]):
        self.model.train()
        y_hat = self.predict(batch["encoder_cont"])  # expect: GG106
        loss = self.loss(y_hat, batch["target"])
        self.optimizer.zero_grad()
        loss.backward()  # also: GG106
        self.optimizer.step()
        return loss.item()

    def validation_step(self, batch):
        y_hat = self.predict(batch["encoder_cont"])
        return self.loss(y_hat, batch["target"]).item()

    def fit(self, train_batches, val_batches, epochs=2):
        for epoch in range(epochs):
            tl = sum(self.training_step(b) for b in train_batches) / len(train_batches)
            vl = sum(self.validation_step(b) for b in val_batches) / len(val_batches)
            self.history.train_loss.append(tl)
            self.history.val_loss.append(vl)
            print(f"epoch {epoch} train {tl:.4f} val {vl:.4f}")


def make_batches(n, batch_size=8, enc_len=12, horizon=4, n_features=3):
    series = torch.cumsum(torch.randn(n * batch_size, enc_len + horizon, n_features), dim=1)
    batches = []
    for i in range(n):
        chunk = series[i * batch_size:(i + 1) * batch_size]
        batches.append({"encoder_cont": chunk[:, :enc_len], "target": chunk[:, enc_len:, 0]})
    return batches


def main():
    torch.manual_seed(0)
    model = TinyTemporalModel(n_features=3, hidden=16, horizon=4, n_quantiles=3)
    trainer = ForecastTrainer(model)
    trainer.fit(make_batches(4), make_batches(2))


if __name__ == "__main__":
    main()
