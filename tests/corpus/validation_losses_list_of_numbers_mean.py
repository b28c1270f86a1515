# corpus: the same evaluation helper keeping numbers (loss.item()) in its list, so np.mean gets floats
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


def evaluate(model, batches):
    losses = []
    for x, y in batches:
        losses.append(F.mse_loss(model(x), y).item())
    return float(np.mean(losses))


torch.manual_seed(0)
model = nn.Linear(5, 1)
print(evaluate(model, [(torch.randn(8, 5), torch.randn(8, 1)) for _ in range(3)]))
