"""GG108: an in-place change to a leaf tensor that requires grad, outside `no_grad`.

## What it does

Finds in-place operations (`w -= lr * w.grad`, `w.add_(...)`,
`layer.bias.zero_()`, `w[0] = 1.0`) on a leaf tensor that requires grad: a
parameter of an `nn` module, an `nn.Parameter`, or a tensor created with
`requires_grad=True`, while autograd is recording. The squiggle is on the
in-place statement.

## Why is this bad

Autograd cannot record an in-place change to a leaf it must accumulate a
gradient into, so torch 2.13 raises at the statement itself:

```text
RuntimeError: a leaf Variable that requires grad is being used in an in-place operation.
```

Index assignment goes through a view and reads
`RuntimeError: a view of a leaf Variable that requires grad is being used in an in-place operation.`

A frequent wrong "fix" is `w = w - lr * w.grad`: it runs, but `w` is now a
non-leaf, its `.grad` stays `None` after the next backward (torch warns), and
the next update fails with a `TypeError`.

## Example

```python
w = torch.randn(3, 1, requires_grad=True)
loss = ((x @ w - y) ** 2).mean()
loss.backward()
w -= 0.1 * w.grad  # GG108
```

## Fix

Wrap the statement in `torch.no_grad()`, which is what manual updates and
initialisation want: the change is not part of any graph.

```python
with torch.no_grad():
    w -= 0.1 * w.grad
```

Trade-off: none for parameter updates and initialisation. If the change was
meant to be differentiable, operate out of place on a non-leaf copy instead.
`retain_graph` is unrelated.

## When it does not fire

- The statement is already under `torch.no_grad()` (or in a function
  decorated with it).
- `nn.init.*` functions, which disable recording themselves.
- The tensor does not require grad (data, buffers, `.grad` itself:
  `w.grad.zero_()` is fine).
- The tensor is not a leaf (`h = w * 2; h.add_(1)` is GG107's business, and
  fine when nothing saved `h`).
"""

from __future__ import annotations

from ..observations import Context, LeafInplace
from .base import SAFE, Invalid, Rule, Valid

RULE = Rule(
    code="GG108",
    name="inplace-on-leaf",
    summary="An in-place change to a leaf tensor that requires grad while autograd is recording.",
    message=(
        "`{op}` changes `{name}` in place, but `{name}` is a tensor that requires grad and is not "
        "computed from others (a leaf, like a parameter), so this line raises; do it inside "
        "`with torch.no_grad():`"
    ),
    fixes={
        "wrap-no-grad": (
            "Wrap the statement in `with torch.no_grad():`",
            "The change is not recorded, which is what updates and initialisation want; if it was "
            "meant to be differentiable, use an out-of-place op on a copy instead.",
        ),
    },
    safety={
        "wrap-no-grad": (
            SAFE,
            "The statement computes the same values; it is no longer recorded, which an update or"
            " an initialisation of a parameter never wants to be (and the original line raised).",
        ),
    },
)

VALID: list[Valid] = [
    # Manual SGD done right.
    Valid(
        """\
import torch

torch.manual_seed(0)
w = torch.randn(3, 1, requires_grad=True)
x = torch.randn(8, 3)
y = torch.randn(8, 1)
for step in range(3):
    loss = ((x @ w - y) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        w -= 0.1 * w.grad
    w.grad.zero_()
"""
    ),
    # nn.init disables recording itself.
    Valid(
        """\
import torch
import torch.nn as nn

layer = nn.Linear(4, 2)
nn.init.zeros_(layer.bias)
nn.init.xavier_uniform_(layer.weight)
"""
    ),
    # In-place on data that does not require grad, and on a non-leaf nothing saved.
    Valid(
        """\
import torch

torch.manual_seed(0)
w = torch.randn(3, requires_grad=True)
x = torch.randn(3)
x += 1.0
h = w * 2
h.add_(x)
h.sum().backward()
"""
    ),
]

INVALID: list[Invalid] = [
    Invalid(
        """\
import torch

torch.manual_seed(0)
w = torch.randn(3, 1, requires_grad=True)
x = torch.randn(8, 3)
y = torch.randn(8, 1)
for step in range(3):
    loss = ((x @ w - y) ** 2).mean()
    loss.backward()
    w -= 0.1 * w.grad
    w.grad.zero_()
""",
        line=10,
        error="RuntimeError: a leaf Variable that requires grad is being used in an in-place operation.",
    ),
    Invalid(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)
head = nn.Linear(8, 2)
head.bias.zero_()
out = head(torch.randn(4, 8))
out.sum().backward()
""",
        line=6,
        error="RuntimeError: a leaf Variable that requires grad is being used in an in-place operation.",
    ),
    Invalid(
        """\
import torch

emb = torch.randn(5, 3, requires_grad=True)
emb[0] = 0.0
loss = emb.pow(2).sum()
loss.backward()
""",
        line=4,
        error="RuntimeError: a view of a leaf Variable that requires grad is being used in an "
        "in-place operation.",
    ),
    # A detection head's bias prior, set through a `.view()` of each layer's bias, layer by layer.
    Invalid(
        """\
import math
import torch
import torch.nn as nn

heads = nn.ModuleList([nn.Conv2d(16, 24, 1), nn.Conv2d(32, 24, 1)])
for head, stride in zip(heads, [8.0, 16.0]):
    b = head.bias.view(3, -1)
    b[:, 4] += math.log(8 / (640 / stride) ** 2)
""",
        line=8,
        error="RuntimeError: a view of a leaf Variable that requires grad is being used in an "
        "in-place operation.",
    ),
]


def check_leaf_inplace(ctx: Context, seen: LeafInplace) -> None:
    fixes = []
    if seen.torch_name is not None:
        fixes.append(
            ctx.fix(
                "GG108",
                "wrap-no-grad",
                "wrap-with",
                stmt=ctx.span(seen.stmt),
                header=f"with {seen.torch_name}.no_grad():",
            )
        )
    ctx.add("GG108", seen.stmt, {"name": ctx.text(seen.target), "op": ctx.text(seen.op)}, [], fixes)


CHECKS = {LeafInplace: check_leaf_inplace}
