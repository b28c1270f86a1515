# corpus: torchbearer-style Trial for a click-through classifier with an epoch ROC-AUC metric (EpochLambda around an sklearn-like roc_auc_score): the metric concatenates the training predictions, which still carry the graph, and its lambda calls y_pred.cpu().numpy()
# raises: RuntimeError: Can't call numpy() on Tensor that requires grad
# source: https://github.com/pytorchbearer/torchbearer/issues/424
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


def roc_auc_score(y_true, y_score):
    """Rank-based AUC (Mann-Whitney U), the same value sklearn returns for binary labels."""
    order = np.argsort(y_score)
    ranks = np.empty_like(order, dtype=np.float64)
    ranks[order] = np.arange(1, len(y_score) + 1)
    n_pos = y_true.sum()
    n_neg = len(y_true) - n_pos
    return (ranks[y_true == 1].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)


class EpochLambda:
    """Collects y_pred / y_true over an epoch and applies a function at the end of it."""

    def __init__(self, name, metric_function, running=True, step_size=4):
        self.name = name
        self._final = metric_function
        self._running = running
        self._step_size = step_size
        self.reset()

    def reset(self):
        self._y_pred = None
        self._y_true = None
        self._steps = 0

    def process(self, state):
        y_pred, y_true = state["y_pred"], state["y_true"]
        if self._y_pred is None:
            self._y_pred, self._y_true = y_pred, y_true
        else:
            self._y_pred = torch.cat((self._y_pred, y_pred), dim=0)
            self._y_true = torch.cat((self._y_true, y_true), dim=0)
        self._steps += 1
        if self._running and self._steps % self._step_size == 0:
            return {"running_" + self.name: self._final(self._y_pred, self._y_true)}
        return {}

    def process_final(self, state):
        return {self.name: self._final(self._y_pred, self._y_true)}


class RocAucScore(EpochLambda):
    def __init__(self, one_hot_labels=False):
        process = (lambda y: np.argmax(y, axis=1)) if one_hot_labels else (lambda y: y)
        super().__init__("roc_auc_score",
                         lambda y_pred, y_true: roc_auc_score(process(y_true.cpu().numpy()),
                                                              y_pred.cpu().numpy()))  # expect: GG110


class Trial:
    def __init__(self, model, optimizer, criterion, metrics):
        self.model = model
        self.optimizer = optimizer
        self.criterion = criterion
        self.metrics = metrics

    def with_generators(self, train_generator):
        self.train_generator = train_generator
        return self

    def run(self, epochs=1):
        history = []
        for epoch in range(epochs):
            self.model.train()
            for m in self.metrics:
                m.reset()
            logs = {}
            for x, y in self.train_generator:
                state = {"x": x, "y_true": y}
                self.optimizer.zero_grad()
                state["y_pred"] = torch.sigmoid(self.model(x)).squeeze(1)
                state["loss"] = self.criterion(state["y_pred"], y.float())
                state["loss"].backward()
                self.optimizer.step()
                for m in self.metrics:
                    logs.update(m.process(state))  # also: GG110
                logs["running_loss"] = state["loss"].item()
            for m in self.metrics:
                logs.update(m.process_final(state))
            history.append(logs)
        return history


def make_generator(n_batches=8, batch_size=16, n_features=10):
    g = torch.Generator().manual_seed(0)
    w = torch.randn(n_features, generator=g)
    batches = []
    for _ in range(n_batches):
        x = torch.randn(batch_size, n_features, generator=g)
        y = (x @ w + 0.3 * torch.randn(batch_size, generator=g) > 0).long()
        batches.append((x, y))
    return batches


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    trial = Trial(model, optimizer, F.binary_cross_entropy, metrics=[RocAucScore()])
    history = trial.with_generators(make_generator()).run(epochs=2)
    print(history)


if __name__ == "__main__":
    main()
