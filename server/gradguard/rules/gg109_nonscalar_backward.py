"""GG109: backward on a tensor with more than one element, without `gradient=`.

## What it does

Finds `backward()` called with no `gradient` argument (or `torch.autograd.grad`
with no `grad_outputs`) on a value that is certainly not a scalar: the result of
a loss built with `reduction="none"`, or a tensor whose shape is known from
literal constructor shapes, layers, indexing and elementwise operations. The
squiggle is on the backward call.

## Why is this bad

`backward()` needs the gradient of the output to start from. torch 2.13
creates it implicitly (as `1.0`) only for a single-element output; otherwise
it raises:

```text
RuntimeError: grad can be implicitly created only for scalar outputs
```

## Example

```python
criterion = nn.MSELoss(reduction="none")
loss = criterion(model(x), y)
loss.backward()  # GG109: loss has one entry per element
```

## Fix

Reduce to a scalar first:

```python
loss.mean().backward()
```

`.mean()` gives the same gradient scale as the default `reduction="mean"`,
independent of batch size. `.sum()` scales gradients with the number of
elements, so the learning rate must be tuned to the batch size. If you kept
per-element losses on purpose (weighting, masking), apply the weights and then
reduce, or pass `gradient=` explicitly. `retain_graph` is unrelated.

## When it does not fire

- The value has exactly one element (shape `()`, `(1,)` or `(1, 1)`).
- `backward(gradient=...)`, `torch.autograd.backward(t, grad_tensors=...)` or
  `torch.autograd.grad(t, x, grad_outputs=...)`.
- The shape is unknown (data from a loader, function parameters): no finding.
"""

from __future__ import annotations

import ast

from ..findings import FixRef
from ..observations import Context, NonScalarBackward
from .base import UNSAFE, Invalid, Rule, Valid

RULE = Rule(
    code="GG109",
    name="nonscalar-backward",
    summary="backward() without gradient= on a tensor that is not a scalar.",
    message=(
        "`{loss}` is not a single number ({why}), so `{call}` without `{given}=` raises; "
        "reduce it with `.mean()` or `.sum()` first"
    ),
    fixes={
        "mean": (
            "Reduce with .mean() before backward",
            "Same gradient scale as reduction='mean', independent of the batch size.",
        ),
        "sum": (
            "Reduce with .sum() before backward",
            "Gradients grow with the number of elements; the learning rate must follow the batch size.",
        ),
    },
    safety={
        "mean": (
            UNSAFE,
            "Picks the gradient's scale (the mean over the elements); choose `.sum()` if the loss"
            " is meant to grow with the batch.",
        ),
        "sum": (
            UNSAFE,
            "Picks the gradient's scale (the sum over the elements): the learning rate must "
            "follow the batch size.",
        ),
    },
)

VALID: list[Valid] = [
    # Per-sample losses weighted, then reduced.
    Valid(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(4, 1)
criterion = nn.MSELoss(reduction="none")
x = torch.randn(8, 4)
y = torch.randn(8, 1)
weights = torch.rand(8, 1)
loss = (criterion(model(x), y) * weights).mean()
loss.backward()
"""
    ),
    # A single-element output.
    Valid(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)
critic = nn.Linear(4, 1)
value = critic(torch.randn(1, 4))
value.backward()
"""
    ),
    # torch.autograd.grad of per-sample outputs, given their gradient.
    Valid(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)
critic = nn.Linear(4, 1)
x = torch.randn(6, 4, requires_grad=True)
scores = critic(x)[:, 0]
(grads,) = torch.autograd.grad(scores, x, grad_outputs=torch.ones_like(scores))
"""
    ),
    # An explicit gradient.
    Valid(
        """\
import torch

w = torch.randn(3, requires_grad=True)
out = w * w
out.backward(gradient=torch.ones(3))
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
opt = torch.optim.SGD(model.parameters(), lr=0.1)
criterion = nn.MSELoss(reduction="none")
x = torch.randn(8, 4)
y = torch.randn(8, 1)
loss = criterion(model(x), y)
opt.zero_grad()
loss.backward()
opt.step()
""",
        line=12,
        error="RuntimeError: grad can be implicitly created only for scalar outputs",
    ),
    # Shape known from the constructor and nn.Linear: (8, 1).
    Invalid(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(4, 1)
x = torch.randn(8, 4)
y = torch.randn(8, 1)
sq_err = (model(x) - y) ** 2
sq_err.backward()
""",
        line=9,
        error="RuntimeError: grad can be implicitly created only for scalar outputs",
    ),
    Invalid(
        """\
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
model = nn.Linear(6, 3)
x = torch.randn(5, 6)
labels = torch.tensor([0, 2, 1, 1, 0])
loss = F.cross_entropy(model(x), labels, reduction="none")
loss.backward()
""",
        line=10,
        error="RuntimeError: grad can be implicitly created only for scalar outputs",
    ),
    # torch.autograd.grad of one output per sample, with no grad_outputs.
    Invalid(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)
critic = nn.Linear(4, 1)
x = torch.randn(6, 4, requires_grad=True)
scores = critic(x)[:, 0]
(grads,) = torch.autograd.grad(scores, x)
""",
        line=8,
        error="RuntimeError: grad can be implicitly created only for scalar outputs",
    ),
]


def check_nonscalar(ctx: Context, seen: NonScalarBackward) -> None:
    shape = seen.shape
    sizes = ", ".join("?" if d is None else str(d) for d in shape or ())
    why = (
        "it has more than one element"
        if shape is None
        else f"shape ({sizes},)"
        if len(shape) == 1
        else f"shape ({sizes})"
    )
    target = seen.run.target
    stmt = seen.run.stmt
    fixes: list[FixRef] = []
    if (
        isinstance(target, ast.Name)
        and isinstance(stmt, ast.Expr)
        and stmt.value is seen.run.call
        and ctx.reads_after(stmt, target.id) == "number"
    ):
        # The loss is read again after its backward, as a number only (`loss.item()` for the log):
        # reduce the name itself, so that read gets a number too. (Other reads, such as per-sample
        # priorities, keep the per-sample loss.)
        name = target.id
        for how in ("mean", "sum"):
            text = f"{name} = {name}.{how}()"
            fixes.append(ctx.fix("GG109", how, "insert-before", anchor=ctx.span(stmt), text=text))
    elif target is not None:
        fixes.append(ctx.fix("GG109", "mean", "append", expr=ctx.span(target), suffix=".mean()"))
        fixes.append(ctx.fix("GG109", "sum", "append", expr=ctx.span(target), suffix=".sum()"))
    grad = seen.run.kind == "grad"
    call, given = ("torch.autograd.grad()", "grad_outputs") if grad else ("backward()", "gradient")
    fields = {"loss": ctx.text(target), "why": why, "call": call, "given": given}
    ctx.add("GG109", seen.run.call, fields, [], fixes)


CHECKS = {NonScalarBackward: check_nonscalar}
