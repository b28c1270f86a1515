# corpus: LightningModule-style classifier with hand-written fit loop: training_step logs accuracy from logits.detach().cpu().numpy(), validation under torch.no_grad() feeds numpy metric helpers, epoch-end aggregates detached outputs, EarlyStopping on val_loss (correct)
# source: https://github.com/Lightning-AI/pytorch-lightning/issues/1429
import argparse
import copy

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


def accuracy_score(y_true, y_pred):
    y_true, y_pred = np.asarray(y_true), np.asarray(y_pred)
    return float((y_true == y_pred).mean())


def f1_score_macro(y_true, y_pred, n_classes):
    scores = []
    for c in range(n_classes):
        tp = np.sum((y_pred == c) & (y_true == c))
        fp = np.sum((y_pred == c) & (y_true != c))
        fn = np.sum((y_pred != c) & (y_true == c))
        denom = 2 * tp + fp + fn
        scores.append(2 * tp / denom if denom > 0 else 0.0)
    return float(np.mean(scores))


class EarlyStopping:
    def __init__(self, monitor="val_loss", patience=2, min_delta=0.0):
        self.monitor = monitor
        self.patience = patience
        self.min_delta = min_delta
        self.best = np.inf
        self.wait = 0
        self.best_state = None

    def __call__(self, metrics, model):
        current = metrics[self.monitor]
        if current < self.best - self.min_delta:
            self.best = current
            self.wait = 0
            self.best_state = copy.deepcopy(model.state_dict())
            return False
        self.wait += 1
        return self.wait >= self.patience


class LitClassifier(nn.Module):
    def __init__(self, in_dim, n_classes, lr):
        super().__init__()
        self.n_classes = n_classes
        self.lr = lr
        self.net = nn.Sequential(nn.Linear(in_dim, 32), nn.ReLU(), nn.Dropout(0.1), nn.Linear(32, n_classes))
        self.logged = {}

    def forward(self, x):
        return self.net(x)

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=self.lr)

    def log(self, key, value):
        self.logged[key] = value

    def training_step(self, batch, batch_idx):
        x, y = batch
        logits = self(x)
        loss = F.cross_entropy(logits, y)
        preds = logits.detach().cpu().numpy().argmax(axis=1)
        self.log("train_acc", accuracy_score(y.cpu().numpy(), preds))
        return {"loss": loss}

    def validation_step(self, batch, batch_idx):
        x, y = batch
        logits = self(x)
        val_loss = F.cross_entropy(logits, y)
        y_hat = logits.argmax(dim=1).cpu().numpy()
        return {"val_loss": val_loss, "y": y.cpu().numpy(), "y_hat": y_hat}

    def validation_epoch_end(self, outputs):
        avg_loss = torch.stack([o["val_loss"] for o in outputs]).mean()
        y = np.concatenate([o["y"] for o in outputs])
        y_hat = np.concatenate([o["y_hat"] for o in outputs])
        metrics = {"val_loss": avg_loss.item(), "val_acc": accuracy_score(y, y_hat), "val_f1": f1_score_macro(y, y_hat, self.n_classes)}
        self.logged.update(metrics)
        return metrics


def fit(model, train_loader, val_loader, max_epochs, early_stopping):
    optimizer = model.configure_optimizers()
    for epoch in range(max_epochs):
        model.train()
        train_outputs = []
        for batch_idx, batch in enumerate(train_loader):
            out = model.training_step(batch, batch_idx)
            optimizer.zero_grad()
            out["loss"].backward()
            optimizer.step()
            train_outputs.append({"loss": out["loss"].detach()})
        train_loss = torch.stack([o["loss"] for o in train_outputs]).mean().item()
        model.eval()
        with torch.no_grad():
            val_outputs = [model.validation_step(batch, i) for i, batch in enumerate(val_loader)]
        metrics = model.validation_epoch_end(val_outputs)
        print("epoch %d train_loss %.4f %s" % (epoch, train_loss, metrics))
        if early_stopping(metrics, model):
            print("early stopping at epoch", epoch)
            break
    if early_stopping.best_state is not None:
        model.load_state_dict(early_stopping.best_state)
    return model


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=1e-2)
    parser.add_argument("--max_epochs", type=int, default=5)
    args = parser.parse_args([])
    torch.manual_seed(0)
    w = torch.randn(10, 3)
    make = lambda: (lambda x: (x, (x @ w).argmax(1)))(torch.randn(16, 10))
    train_loader = [make() for _ in range(4)]
    val_loader = [make() for _ in range(2)]
    model = LitClassifier(10, 3, args.lr)
    fit(model, train_loader, val_loader, args.max_epochs, EarlyStopping(patience=2))


if __name__ == "__main__":
    main()
