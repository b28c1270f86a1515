"""## What it does
Finds a loss (or any tensor with a graph) accumulated across loop iterations
for bookkeeping: `total += loss`, `total = total + loss`, a decayed or
subtracted running value (`avg = 0.99 * avg + loss`, `h = h - g`), a dict of
running sums made again each iteration (`{k: totals[k] + losses[k] for k in
totals}`), `losses.append(loss)`, where the accumulator is never
backpropagated.

## Why is this bad
The sum is itself part of the graph, so it keeps every iteration's graph
alive: activations, saved tensors and autograd nodes of the whole epoch stay in
memory until the accumulator is dropped. Nothing raises; memory just grows with
the number of iterations. Measured on torch 2.13 (CPU): a validation loop
without `no_grad` over a 3-layer, 512-wide MLP (batch 256) that appended its
losses grew peak memory by 74 MB in 30 iterations, against 7 MB when appending
`loss.item()`; after 100 training iterations of `total += loss` on a single
linear layer, 502 autograd nodes were still reachable from `total`. On a GPU the
same growth ends in `CUDA out of memory` hours into a run.

## Example
```python
running_loss = 0.0
for epoch in range(5):
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    running_loss += loss        # keeps every epoch's graph alive
```

## Fix
Accumulate a Python number:

```python
running_loss += loss.item()
```

`.item()` waits for the device (a GPU sync per call); if that matters, accumulate
`loss.detach()` instead and call `.item()` once at the end.

## When it does not fire
When the accumulated value is `.item()`, `.detach()`ed or computed under
`torch.no_grad()`, and when the accumulator is later passed to `backward()`
(deliberate gradient accumulation with one backward pass), returned or handed
on (a forward that collects per-layer outputs and concatenates them, a sum of
per-codebook losses returned to the caller, a list spliced into
`torch.cat((*obs, *actions))`). A sum or running average of losses that were
already backpropagated is the exception: no caller can backpropagate it again,
so it fires even when returned (a metric object's `compute()`). Nor when the
iteration built nothing new: a
loop that rebuilds lists from the elements of a buffer filled earlier
(`for s, prob in buffer: probs.append([prob])`) keeps no graph the buffer did
not keep already (the buffer itself is reported where it is filled).
"""

from __future__ import annotations

import ast

from ..findings import FixRef, Related
from ..observations import Context, GraphAccumulated
from .base import SAFE, UNSAFE, Invalid, Rule, Valid

RULE = Rule(
    code="GG301",
    name="accumulated-graph",
    summary="Accumulating a graph-bearing loss across iterations keeps every iteration's graph in memory.",
    message=(
        "`{acc}` accumulates `{value}`, which still has its graph, so every iteration's graph stays "
        "in memory; accumulate `{suggest}` instead"
    ),
    variants={
        # A record (dict, tuple) holding graph tensors: no single expression to suggest.
        "record": (
            "`{acc}` keeps `{value}`, which holds tensors that still have their graphs, so every "
            "iteration's graph stays in memory; keep numbers (`.item()`) or detached tensors in it"
        ),
    },
    fixes={
        "use-detach": (
            "Accumulate `.detach()`",
            "The accumulator stays a tensor (on the GPU, if the loss is there) without the graphs.",
        ),
        "use-item": (
            "Accumulate `.item()`",
            "The accumulator becomes a Python number; a device sync per call on GPU.",
        ),
    },
    safety={
        "use-detach": (
            SAFE,
            "The accumulator stays a tensor with the same values; only the graph it kept alive is"
            " dropped, and nothing backpropagates it.",
        ),
        "use-item": (
            UNSAFE,
            "The accumulator becomes a Python float: code that later calls tensor methods on it "
            "(`.item()`, `.cpu()`) breaks, and each call syncs with the GPU.",
        ),
    },
)

VALID: list[Valid] = [
    Valid(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
criterion = nn.MSELoss()
x = torch.randn(32, 4)
y = torch.randn(32, 1)
running_loss = 0.0
for epoch in range(5):
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    running_loss += loss.item()
"""
    ),
    # Deliberate accumulation: one backward over the sum.
    Valid(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
total = torch.zeros(())
for chunk in range(4):
    x = torch.randn(8, 4)
    y = torch.randn(8, 1)
    total = total + nn.functional.mse_loss(model(x), y)
optimizer.zero_grad()
total.backward()
optimizer.step()
"""
    ),
    # Validation under no_grad.
    Valid(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
val_losses = []
with torch.no_grad():
    for batch in range(3):
        x = torch.randn(8, 4)
        y = torch.randn(8, 1)
        val_losses.append(nn.functional.mse_loss(model(x), y))
"""
    ),
    # Detached accumulation.
    Valid(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(4, 1)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
epoch_loss = torch.zeros(())
for step in range(3):
    loss = model(torch.randn(8, 4)).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    epoch_loss += loss.detach()
"""
    ),
]

INVALID: list[Invalid] = [
    Invalid(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
criterion = nn.MSELoss()
x = torch.randn(32, 4)
y = torch.randn(32, 1)
running_loss = 0.0
for epoch in range(5):
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    running_loss += loss
""",
        line=16,
        effect="isinstance(running_loss, torch.Tensor) and running_loss.requires_grad",
    ),
    # Validation loop that forgot no_grad and keeps the loss tensors.
    Invalid(
        """\
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.body(x)


torch.manual_seed(0)
model = Net()
model.eval()
val_losses = []
for batch in range(3):
    x = torch.randn(8, 4)
    y = torch.randn(8, 1)
    val_loss = nn.functional.mse_loss(model(x), y)
    val_losses.append(val_loss)
mean_val = sum(float(v) for v in val_losses) / len(val_losses)
""",
        line=22,
        effect="any(isinstance(v, torch.Tensor) and v.requires_grad for v in val_losses)",
    ),
    # A tracking trainer's meters, made per phase on first use and fed the stats dict's tensors.
    Invalid(
        """\
import torch
import torch.nn as nn


class AverageMeter:
    def __init__(self):
        self.sum = 0
        self.count = 0

    def update(self, val, n=1):
        self.sum += val * n
        self.count += n


model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
meters = {"train": None}
for step in range(3):
    loss = nn.functional.mse_loss(model(torch.randn(8, 4)), torch.randn(8, 1))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    stats = {"Loss/total": loss, "Loss/l2": loss}
    if "train" not in meters or meters["train"] is None:
        meters["train"] = {name: AverageMeter() for name in stats.keys()}
    for name, val in stats.items():
        meters["train"][name].update(val, 8)
""",
        line=27,
        effect='meters["train"]["Loss/total"].sum.requires_grad',
    ),
    # A smoothed loss kept by a metric object and read back through a method: returning a
    # running value of graphs already backpropagated hands on nothing a caller can use.
    Invalid(
        """\
import torch
import torch.nn as nn


class RunningAverage:
    def __init__(self, alpha=0.9):
        self.alpha = alpha
        self.value = 0.0

    def update(self, loss):
        self.value = self.alpha * self.value + (1 - self.alpha) * loss

    def compute(self):
        return self.value


torch.manual_seed(0)
model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
smooth = RunningAverage()
for step in range(5):
    loss = nn.functional.mse_loss(model(torch.randn(8, 4)), torch.randn(8, 1))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    smooth.update(loss)
print(f"smoothed loss {smooth.compute().item():.3f}")
""",
        line=11,
        effect="isinstance(smooth.value, torch.Tensor) and smooth.value.requires_grad",
    ),
]


def check_accumulated(ctx: Context, seen: GraphAccumulated) -> None:
    """An accumulator that keeps graphs: reported at the accumulating statement (or where the value
    is passed to the meter that sums it), held until the analysis ends, since returning or
    backpropagating the accumulator later makes it no leak."""
    text = ctx.text(seen.value)
    fixes: list[FixRef] = []
    if not seen.record:  # for a record, which of its fields to detach is the user's call
        # The detached tensor keeps the accumulator's type and value (safe); a Python number
        # (`.item()`, scalars only) is the common idiom but changes its type.
        fixes.append(ctx.fix("GG301", "use-detach", "append", expr=ctx.span(seen.value), suffix=".detach()"))
        if seen.scalar:
            fixes.append(ctx.fix("GG301", "use-item", "append", expr=ctx.span(seen.value), suffix=".item()"))
    simple = isinstance(seen.value, (ast.Name, ast.Attribute, ast.Call, ast.Subscript))
    atom = text if simple else f"({text})"
    # `.item()` only for a tensor known to be a scalar; anything else would raise there.
    suggest = f"{atom}.item()" if seen.scalar else f"{atom}.detach()"
    related = []
    if seen.built is not None:
        related.append(Related(ctx.span(seen.built), f"graph built here: {ctx.text(seen.built)}", "built"))
    if seen.inside is not None:
        # Reported where the tensor is passed in; the sum itself is kept here.
        related.append(Related(ctx.span(seen.inside), f"adds it up here: {ctx.text(seen.inside)}", "reused"))
    ctx.add(
        "GG301",
        seen.stmt,
        {"acc": seen.acc, "value": text, "suggest": suggest},
        related,
        fixes,
        variant="record" if seen.record else None,
        unless_consumed=seen.key,
    )


CHECKS = {GraphAccumulated: check_accumulated}
