import numpy as np
import torch


def roc_auc_score(y_true, y_score):
    """Macro-averaged one-vs-rest ROC AUC (rank formulation), numpy only."""
    aucs = []
    for c in range(y_true.shape[1]):
        pos = y_score[y_true[:, c] == 1, c]
        neg = y_score[y_true[:, c] == 0, c]
        if len(pos) == 0 or len(neg) == 0:
            continue
        greater = (pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()
        aucs.append(greater / (len(pos) * len(neg)))
    return float(np.mean(aucs))


class EpochLambda:
    """Accumulates y_pred / y_true over an epoch and applies a function at the end."""

    def __init__(self, name, metric_function):
        self.name = name
        self._metric_function = metric_function
        self._y_true = None
        self._y_pred = None

    def reset(self, state):
        self._y_true = None
        self._y_pred = None

    def process_train(self, state):
        if self._y_true is None:
            self._y_true = state["y_true"]
            self._y_pred = state["y_pred"]
        else:
            self._y_true = torch.cat((self._y_true, state["y_true"]), dim=0)
            self._y_pred = torch.cat((self._y_pred, state["y_pred"]), dim=0)  # expect: GG301

    def process_final_train(self, state):
        return self._metric_function(self._y_pred, self._y_true)  # also: GG110


class RocAucScore(EpochLambda):
    def __init__(self, one_hot_labels=True, one_hot_offset=0, one_hot_classes=10):
        if one_hot_labels:
            process = lambda y: np.eye(one_hot_classes)[y - one_hot_offset]
        else:
            process = lambda y: y
        super().__init__('roc_auc_score', lambda y_pred, y_true: roc_auc_score(process(y_true.cpu().numpy()), y_pred.cpu().numpy()))  # expect: GG110


class Loss:
    def __init__(self):
        self.name = "running_loss"
        self.total = 0.0
        self.count = 0

    def reset(self, state):
        self.total, self.count = 0.0, 0

    def process_train(self, state):
        self.total += state["loss"].item()
        self.count += 1

    def process_final_train(self, state):
        return self.total / max(self.count, 1)
