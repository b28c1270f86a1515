"""GG103: a graph built before a loop is backpropagated inside it.

## What it does

Finds a value computed with autograd recording *before* a loop and read inside
the loop by a loss that is backpropagated in every iteration. The squiggle is
on the name the value is bound to before the loop (the statement to move into
the loop), also when a helper called before the loop built it; the first read
inside the loop and the backward are related locations. One
`torch.optim.LBFGS.step(closure)` is such a loop too: it calls the closure
again in each iteration of its search, so a graph built before the step and
read in the closure meets the same error at the closure's second call.

## Why is this bad

The pre-loop computation's graph is built once, but each iteration's loss
hangs off it. The first iteration's backward frees the buffers of the shared
pre-loop part, and the second iteration's backward needs them again. Torch
2.13 raises, at the second iteration:

```text
RuntimeError: Trying to backward through the graph a second time (or directly access saved tensors after they have already been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if you need to access saved tensors after calling backward.
```

Even without the error, the value would be stale: after `optimizer.step()`
the parameters change but the pre-loop value still holds the old result.

## Example

```python
t = torch.eye(2, dtype=torch.float64, requires_grad=True)
a = torch.ones(2, dtype=torch.float64, requires_grad=True)
y = t @ a  # GG103: y's graph is reused by every iteration
for _ in range(2):
    x_out = t @ (x + y)
    loss = measure(x_out, x)
    loss.backward()
```

## Fix

Move the computation into the loop, so each iteration builds its own graph
from the current parameters:

```python
for _ in range(2):
    y = t @ a
    x_out = t @ (x + y)
    loss = measure(x_out, x)
    loss.backward()
```

The trade-off is time: the moved statements run once per iteration. If the
value really is constant (a frozen feature extractor), compute it under
`torch.no_grad()` or `.detach()` it instead. `retain_graph=True` is the wrong
fix here: it silences the error and keeps the pre-loop buffers alive for the
whole loop, but the value stays stale: with `scale = log_scale.exp()` computed
before an Adam loop over `log_scale`, `scale` still reads `[1., 1., 1.]` after
five steps, and with fixed data every iteration gets exactly the same gradient.

Unless the passes are the point: a loop that backpropagates one forward pass
several times, uses each pass's gradients (reads `.grad`, or calls
`torch.autograd.grad`) and changes no weights (a saliency map per class, the
rows of a Hessian). There nothing goes stale, and the fix is `retain_graph=True`
on the backward in the loop: GG101 reports that loop, on that backward.

## When it does not fire

- The forward is recomputed inside the loop.
- The loop is known to run once (over a list of one hook or one batch): no second iteration
  meets the freed graph. A later loop that backpropagates through it again is reported.
- An optimizer's `step(closure)` is a loop only for L-BFGS with `max_iter` of 2 or more (its
  default is 20), which calls the closure again within one step; other optimizers call it once.
- The pre-loop value was computed under `torch.no_grad()` or detached.
- The pre-loop value does not require grad at all (masks, constants).
- Nothing in the loop changes the weights and each pass's gradients are used:
  the passes are meant, and GG101 asks for `retain_graph=True` instead.
"""  # noqa: E501 (torch's error messages are quoted verbatim)

from __future__ import annotations

from typing import Any

from ..findings import FixRef
from ..observations import Context, StaleGraphReused
from .base import UNSAFE, Invalid, Rule, Valid, gated

RULE = Rule(
    code="GG103",
    name="graph-built-before-loop",
    summary="A value computed before a loop is backpropagated through in every iteration.",
    message=(
        "`{name}` was computed on line {built_line}, before the loop; the backward on line "
        "{backward_line} frees its graph in the first iteration, so the second iteration's backward "
        "raises; compute `{name}` inside the loop"
    ),
    variants={
        # The backward runs only in some iterations (`if (t + 1) % 4 == 0:`): its next run fails.
        "gated": (
            "`{name}` was computed on line {built_line}, before the loop; the backward on line "
            "{backward_line} frees its graph the first time it runs, so its next run raises; compute "
            "`{name}` inside the loop"
        ),
        # Freed by an earlier loop that ran once (`for eq in [x]:`), met by this loop's first pass.
        "earlier-loop": (
            "`{name}` was computed on line {built_line}, before the loop; the backward on line "
            "{freed_line}, in an earlier loop, freed its graph, so this loop's first backward (line "
            "{backward_line}) raises; compute `{name}` inside the loop"
        ),
        # The loop is an L-BFGS step's calls of its closure (`optimizer.step(closure)`).
        "closure": (
            "`{name}` was computed on line {built_line}, before `{step}`, which calls `{closure}` "
            "more than once (L-BFGS evaluates it again in each iteration of its search): the backward "
            "on line {backward_line} frees its graph in the first call, so the second call's backward "
            "raises; compute `{name}` inside `{closure}`"
        ),
    },
    fixes={
        "move-into-loop": (
            "Move the computation into the loop",
            "The moved statements re-run every iteration (time), but each iteration gets a fresh "
            "graph built from the current parameters.",
        ),
        "move-into-closure": (
            "Move the computation into the closure",
            "The moved statements re-run at every call of the closure (time), but each call gets a "
            "fresh graph built from the current parameters.",
        ),
    },
    safety={
        "move-into-loop": (
            UNSAFE,
            "The moved statements now run every iteration: the value follows the updated weights "
            "(the intent), but anything random or read from data among them changes each time "
            "too.",
        ),
        "move-into-closure": (
            UNSAFE,
            "The moved statements now run at every call of the closure: the value follows the "
            "weights the search tries (the intent), but anything random among them changes each "
            "time too.",
        ),
    },
)

VALID: list[Valid] = [
    # The seed snippet with the forward recomputed inside the loop.
    Valid(
        """\
import torch

measure = torch.nn.MSELoss()
x = torch.tensor([1, 0], dtype=torch.float64)
t = torch.eye(2, dtype=torch.float64, requires_grad=True)
a = torch.ones(2, dtype=torch.float64, requires_grad=True)
for _ in range(2):
    y = t @ a
    x_out = t @ (x + y)
    loss = measure(x_out, x)
    loss.backward()
"""
    ),
    # Frozen features computed once without recording.
    Valid(
        """\
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
backbone = nn.Linear(4, 8)
head = nn.Linear(8, 1)
opt = torch.optim.SGD(head.parameters(), lr=0.1)
x = torch.randn(16, 4)
y = torch.randn(16, 1)
with torch.no_grad():
    feats = torch.tanh(backbone(x))
for epoch in range(3):
    opt.zero_grad()
    loss = F.mse_loss(head(feats), y)
    loss.backward()
    opt.step()
"""
    ),
    # A pre-loop tensor that does not require grad (a causal mask).
    Valid(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)
proj = nn.Linear(4, 4)
opt = torch.optim.SGD(proj.parameters(), lr=0.1)
mask = torch.tril(torch.ones(4, 4)) * 2.0
for step in range(3):
    scores = proj(torch.randn(4, 4)) * mask
    loss = scores.pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
"""
    ),
]

INVALID: list[Invalid] = [
    # The seed case (discuss.pytorch.org, "Graph is reused while it shouldn't").
    Invalid(
        """\
import torch

measure = torch.nn.MSELoss()
x = torch.tensor([1, 0], dtype=torch.float64)
t = torch.eye(2, dtype=torch.float64, requires_grad=True)
a = torch.ones(2, dtype=torch.float64, requires_grad=True)
y = t @ a

for _ in range(2):
    x_out = t @ (x + y)
    loss = measure(x_out, x)
    loss.backward()
""",
        line=7,
        error="RuntimeError: Trying to backward through the graph a second time",
    ),
    Invalid(
        """\
import torch

torch.manual_seed(0)
log_scale = torch.zeros(3, requires_grad=True)
opt = torch.optim.Adam([log_scale], lr=0.1)
data = torch.randn(10, 3)
scale = log_scale.exp()
for step in range(5):
    opt.zero_grad()
    loss = ((data * scale) ** 2).mean()
    loss.backward()
    opt.step()
""",
        line=7,
        error="RuntimeError: Trying to backward through the graph a second time",
    ),
    Invalid(
        """\
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
backbone = nn.Linear(4, 8)
head = nn.Linear(8, 1)
opt = torch.optim.SGD([*backbone.parameters(), *head.parameters()], lr=0.1)
x = torch.randn(16, 4)
y = torch.randn(16, 1)
feats = torch.tanh(backbone(x))
for epoch in range(3):
    opt.zero_grad()
    loss = F.mse_loss(head(feats), y)
    loss.backward()
    opt.step()
""",
        line=11,
        error="RuntimeError: Trying to backward through the graph a second time",
    ),
    # Features computed once, a backward every fourth iteration: the second one raises.
    Invalid(
        """\
import torch
import torch.nn as nn

enc = nn.Linear(3, 3)
head = nn.Linear(3, 1)
opt = torch.optim.SGD([*enc.parameters(), *head.parameters()], lr=0.1)
x = torch.randn(2, 3)
feats = enc(x)
total = 0
for t in range(8):
    total = total + head(feats).pow(2).mean()
    if (t + 1) % 4 == 0:
        opt.zero_grad()
        total.backward()
        opt.step()
        total = 0
""",
        line=8,
        error="RuntimeError: Trying to backward through the graph a second time",
    ),
    # One L-BFGS step (max_iter=20) calls its closure again: the second call meets the freed graph.
    Invalid(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)
net = nn.Linear(2, 1)
log_scale = nn.Parameter(torch.tensor(0.0))
opt = torch.optim.LBFGS([log_scale, *net.parameters()], lr=0.5)
x, y = torch.randn(8, 2), torch.randn(8, 1)
scale = log_scale.exp()


def closure():
    opt.zero_grad()
    loss = ((net(x) * scale - y) ** 2).mean()
    loss.backward()
    return loss


opt.step(closure)
""",
        line=9,
        error="RuntimeError: Trying to backward through the graph a second time",
    ),
]


def check_stale(ctx: Context, seen: StaleGraphReused) -> None:
    """Reported on the statement to change, with the move-into-loop fix when the engine found it
    safe (never for a graph an earlier loop reads too)."""
    if seen.repeats:
        return  # passes over one graph on purpose: GG101's
    fixes: list[FixRef] = []
    if seen.move is not None:
        key = "move-into-closure" if seen.closure is not None else "move-into-loop"
        fixes.append(ctx.fix("GG103", key, "move-into-loop", **seen.move))
    fields: dict[str, Any] = {
        "name": seen.name,
        "built_line": seen.built_line,
        "backward_line": seen.run.call.lineno,
    }
    if seen.earlier:
        fields["freed_line"] = seen.first.call.lineno
    variant = "earlier-loop" if seen.earlier else "gated" if gated(seen.run) else None
    if seen.closure is not None and not seen.earlier:
        fields["step"], fields["closure"] = seen.closure
        variant = "closure"
    ctx.add("GG103", seen.anchor, fields, list(seen.related), fixes, seen.chain, variant=variant)


CHECKS = {StaleGraphReused: check_stale}

