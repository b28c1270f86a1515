# corpus: a magnitude-pruning helper copies a live parameter with np.copy to find its threshold; NumPy turns the parameter into an array, which requires grad
# raises: RuntimeError: Can't call numpy() on Tensor that requires grad
import numpy as np
import torch
import torch.nn as nn


def prune_threshold(weight, sparsity):
    values = np.copy(weight)  # expect: GG110
    return float(np.percentile(np.abs(values), sparsity * 100))


torch.manual_seed(0)
model = nn.Linear(6, 4)
print(prune_threshold(model.weight, 0.5))
