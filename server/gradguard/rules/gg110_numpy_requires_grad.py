"""## What it does
Finds `.numpy()` called on a tensor that is still part of an autograd graph:
a model output, a parameter, or anything computed from them while gradients
are recorded.

## Why is this bad
NumPy arrays cannot carry a graph, so torch refuses the conversion rather than
silently cutting gradients off:

```
RuntimeError: Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.
```

It usually bites in logging and metric code (`pred.numpy()`, `loss.numpy()`)
that worked in an evaluation script under `torch.no_grad()` and then got copied
into the training loop.

NumPy functions that turn their argument into an array do the same conversion
(`np.array(t)`, `np.asarray(t)`, `np.clip(action, -1, 1)`, `np.exp(log_prob)`,
`np.argmax(q)`...) and raise the same error; they are found too. NumPy's
reductions (`np.sum(t)`, `np.mean(t)`) call the tensor's own method instead and
fail differently, so they are left out.

## Example
```python
model = nn.Linear(4, 1)
pred = model(torch.randn(8, 4))
scores = pred.numpy()  # RuntimeError
```

## Fix
Detach first; on a GPU also move to the CPU:

```python
scores = pred.detach().numpy()        # CPU tensors
scores = pred.detach().cpu().numpy()  # works on any device
```

The array shares memory with the detached tensor (on the CPU), so writing into
it changes `pred`'s values but never its gradient. If the whole block only
computes metrics, wrapping it in `with torch.no_grad():` also saves the graph's
memory.

## When it does not fire
On tensors created without `requires_grad`, under `torch.no_grad()` /
`torch.inference_mode()`, after `.detach()`, and on outputs of a model whose
parameters the file freezes (then gradguard cannot prove they require grad).
"""

from __future__ import annotations

from ..observations import Context, NumpyOnGrad
from .base import SAFE, Invalid, Rule, Valid

RULE = Rule(
    code="GG110",
    name="numpy-on-grad-tensor",
    summary="`.numpy()` on a tensor that requires grad raises; detach it first.",
    message=(
        "`{name}` requires grad, so turning it into a NumPy array raises a RuntimeError; "
        "use `{name}.detach()` there instead"
    ),
    variants={
        "list": (
            "`{name}` holds tensors that require grad, so NumPy, turning each into an array, raises "
            "a RuntimeError; keep numbers in it (`.item()`) or detach its tensors first"
        ),
    },
    fixes={
        "detach-numpy": (
            "Insert `.detach().cpu()` before `.numpy()`",
            "The array no longer tracks gradients; `.cpu()` makes it work for GPU tensors too (free on CPU).",
        ),
        "pass-array": (
            "Pass `.detach().cpu().numpy()` to the NumPy function",
            "NumPy gets an array of the same values instead of the tensor; `.cpu()` makes it work for "
            "GPU tensors too.",
        ),
    },
    safety={
        "detach-numpy": (
            SAFE,
            "The array holds the same values; NumPy never carried gradients, so nothing that "
            "trained changes.",
        ),
        "pass-array": (
            SAFE,
            "NumPy converted the tensor to the same array before; it never carried gradients, so "
            "nothing that trained changes.",
        ),
    },
)

VALID: list[Valid] = [
    # Under no_grad the output carries no graph.
    Valid(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(4, 1)
x = torch.randn(8, 4)
with torch.no_grad():
    pred = model(x)
scores = pred.numpy()
"""
    ),
    # Already detached.
    Valid(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
x = torch.randn(8, 4)
pred = model(x)
scores = pred.detach().numpy()
loss = pred.pow(2).mean()
loss.backward()
"""
    ),
    # Plain data never required grad.
    Valid(
        """\
import torch

torch.manual_seed(0)
x = torch.randn(8, 4)
x_mean = x.mean(dim=0)
stats = x_mean.numpy()
"""
    ),
    # A frozen feature extractor: its output does not require grad.
    Valid(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)
backbone = nn.Linear(4, 8)
for p in backbone.parameters():
    p.requires_grad_(False)
x = torch.randn(8, 4)
features = backbone(x).numpy()
"""
    ),
    # The same agent picks its action without recording a graph.
    Valid(
        """\
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
policy = nn.Sequential(nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 2))
state = torch.randn(1, 3)
with torch.no_grad():
    action = policy(state)
env_action = np.clip(action, -1.0, 1.0)
"""
    ),
]

INVALID: list[Invalid] = [
    Invalid(
        """\
import torch
import torch.nn as nn


class Regressor(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(x)


torch.manual_seed(0)
model = Regressor()
x = torch.randn(8, 4)
pred = model(x)
scores = pred.numpy()
""",
        line=18,
        error="RuntimeError: Can't call numpy() on Tensor that requires grad.",
    ),
    # Logging the loss inside a training loop.
    Invalid(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
criterion = nn.MSELoss()
x = torch.randn(16, 4)
y = torch.randn(16, 1)
history = []
for epoch in range(3):
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    history.append(loss.numpy())
""",
        line=16,
        error="RuntimeError: Can't call numpy() on Tensor that requires grad.",
    ),
    # A leaf parameter built by hand.
    Invalid(
        """\
import torch

torch.manual_seed(0)
w = torch.randn(3, requires_grad=True)
x = torch.randn(5, 3)
logits = x @ w
probs = torch.sigmoid(logits).numpy()
""",
        line=7,
        error="RuntimeError: Can't call numpy() on Tensor that requires grad.",
    ),
    # An RL agent clips the policy's action with NumPy while the action still carries its graph.
    Invalid(
        """\
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
policy = nn.Sequential(nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 2))
state = torch.randn(1, 3)
action = policy(state)
env_action = np.clip(action, -1.0, 1.0)
""",
        line=9,
        error="RuntimeError: Can't call numpy() on Tensor that requires grad",
    ),
    # Hard thresholding of named parameters: `getattr(model, name)` is the live parameter.
    Invalid(
        """\
import numpy as np
import torch
import torch.nn as nn


class Sparse(nn.Module):
    def __init__(self):
        super().__init__()
        self.W = nn.Parameter(torch.randn(4, 4))
        self.Z = nn.Parameter(torch.randn(4, 4))


model = Sparse()
for name, keep in {"W": 0.5, "Z": 0.3}.items():
    param = getattr(model, name)
    kept = np.percentile(np.abs(param), 100 * (1 - keep))
""",
        line=16,
        error="RuntimeError: Can't call numpy() on Tensor that requires grad",
    ),
]


def check_numpy(ctx: Context, seen: NumpyOnGrad) -> None:
    # `t.numpy()` gets `.detach().cpu()` inserted; a NumPy function given the tensor (`np.clip(t)`)
    # gets the array itself, under a title that says so.
    suffix, fix_id = (
        (".detach().cpu().numpy()", "pass-array") if seen.array_call else (".detach().cpu()", "detach-numpy")
    )
    if seen.in_list:
        # A list of tensors (`np.mean(losses)`): which element to detach, or whether to keep
        # numbers (`.item()`) when the list is filled, is the user's call. No automatic fix.
        ctx.add("GG110", seen.call, {"name": ctx.text(seen.recv)}, [], [], variant="list")
        return
    fixes = [ctx.fix("GG110", fix_id, "append", expr=ctx.span(seen.recv), suffix=suffix)]
    ctx.add("GG110", seen.call, {"name": ctx.text(seen.recv)}, [], fixes)


CHECKS = {NumpyOnGrad: check_numpy}
