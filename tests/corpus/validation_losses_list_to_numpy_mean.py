# corpus: an evaluation helper collects the batch losses as tensors (computed with grad on) and averages them with np.mean, which turns each tensor into an array
# raises: RuntimeError: Can't call numpy() on Tensor that requires grad
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


def evaluate(model, batches):
    losses = []
    for x, y in batches:
        losses.append(F.mse_loss(model(x), y))
    return float(np.mean(losses))  # expect: GG110


torch.manual_seed(0)
model = nn.Linear(5, 1)
print(evaluate(model, [(torch.randn(8, 5), torch.randn(8, 1)) for _ in range(3)]))
