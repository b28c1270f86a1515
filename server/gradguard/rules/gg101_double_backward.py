"""GG101: a second backward through a graph whose buffers are already freed.

## What it does

Finds a `backward()` (or `torch.autograd.grad`) on a value whose graph an
earlier backward already walked without `retain_graph=True`. The typical
shapes are the same loss backpropagated twice, and `autograd.grad(loss, w)`
followed by `loss.backward()`.

It also finds a loop that backpropagates one forward pass several times on
purpose (a saliency map per class, the rows of a Hessian, Hessian-vector
products in a power iteration): each pass's gradients are used and nothing in
the loop changes the weights, so the value built before the loop is not
stale; only the backward in the loop lacks `retain_graph=True`. The squiggle
is on that backward. (When the loop trains, the value built before it is
stale, and GG103 reports it instead.)

## Why is this bad

A backward pass frees the intermediate values each graph node saved for it
(the inputs of `*`, the output of `sigmoid`, the activations a `Linear` layer
keeps for its weight gradient). The second pass needs them again and torch
2.13 stops with:

```text
RuntimeError: Trying to backward through the graph a second time (or directly access saved tensors after they have already been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if you need to access saved tensors after calling backward.
```

Almost every operation saves something: even `x * 2` with a Python scalar
does, so a double backward after it fails too.

## Example

```python
import torch

w = torch.randn(3, requires_grad=True)
loss = (w * torch.randn(3)).exp().sum()
(g,) = torch.autograd.grad(loss, w)
loss.backward()  # GG101: autograd.grad already freed the graph
```

## Fix

Usually the second pass is a mistake (a duplicated line, or `autograd.grad`
used for logging before the real backward): delete it, or get everything
from one pass (`loss.backward()` and read `w.grad`).

```python
loss.backward()
g = w.grad
```

`retain_graph=True` on every pass but the last is right only when you really
need several passes over one graph (for instance gradients of the same loss
with respect to different inputs, inspected in between). Its cost: every
buffer the graph saved stays alive until the last reference to the graph is
dropped, so peak memory holds a whole extra set of activations, and the
gradients of both passes add up in `.grad` unless you clear them.

## When it does not fire

- A graph made only of operations that save nothing (`+`, `-`, `sum`,
  `mean`, views, slicing, `cat`): `(x + 1).sum()` can be backpropagated twice
  and the gradients simply accumulate.
- The earlier pass used `retain_graph=True` or `create_graph=True`.
- A fresh forward pass rebuilt the value in between.
"""  # noqa: E501 (torch's error messages are quoted verbatim)

from __future__ import annotations

from ..findings import FixRef
from ..observations import Context, FreedGraphReused, StaleGraphReused
from .base import UNSAFE, Invalid, Rule, Valid, retain_fix

RULE = Rule(
    code="GG101",
    name="double-backward",
    summary="Backward through a graph whose saved buffers an earlier backward already freed.",
    message=(
        "`{loss}` is backpropagated again, but the backward on line {first_line} already freed its "
        "graph, so this backward raises; backpropagate once, or pass `retain_graph=True` to the first"
    ),
    variants={
        # Passes over one graph built before the loop, meant: the loop changes no weights.
        "repeated": (
            "`{name}` was computed on line {built_line}, before the loop, and this backward frees its "
            "graph in the first iteration, so the second iteration's backward raises; nothing in this "
            "loop changes the weights, so pass `retain_graph=True` here (the graph stays in memory "
            "until the loop ends), or compute `{name}` inside the loop"
        ),
    },
    fixes={
        "remove-second-backward": (
            "Remove the second backward",
            "Keeps memory flat; any gradient you expected from the second pass must come from the first.",
        ),
        "retain-graph": (
            "Pass retain_graph=True to the earlier backward",
            "Every saved buffer stays alive until the graph is dropped (more peak memory), "
            "and both passes add into .grad.",
        ),
        "move-into-loop": (
            "Move the computation into the loop",
            "The moved statements re-run every iteration (time); each pass gets a graph of its own.",
        ),
    },
    safety={
        "remove-second-backward": (
            UNSAFE,
            "The gradient the second pass would have added is gone: if it was meant, the model "
            "now trains on half of it.",
        ),
        "retain-graph": (
            UNSAFE,
            "Both passes now run and both add into `.grad`; right only when two passes are really"
            " wanted and no step changes the weights between them, and every saved tensor stays "
            "in memory until the second.",
        ),
        "move-into-loop": (
            UNSAFE,
            "The moved statements now run every iteration: more time, and any randomness in them "
            "(dropout, sampling) is drawn again for each pass.",
        ),
    },
)

VALID: list[Valid] = [
    # Only no-save ops: torch accepts the second pass and the gradient accumulates to 2.
    Valid(
        """\
import torch

x = torch.randn(3, requires_grad=True)
total = (x + 1).sum()
total.backward()
total.backward()
assert torch.equal(x.grad, torch.full((3,), 2.0))
"""
    ),
    # Both passes are wanted: the first keeps the graph alive on purpose.
    Valid(
        """\
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
model = nn.Linear(4, 1)
x = torch.randn(8, 4)
y = torch.randn(8, 1)
loss = F.mse_loss(model(x), y)
loss.backward(retain_graph=True)
first = model.weight.grad.clone()
model.zero_grad()
loss.backward()
assert torch.allclose(first, model.weight.grad)
"""
    ),
    # A fresh forward before each backward.
    Valid(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
criterion = nn.MSELoss()
x = torch.randn(16, 4)
y = torch.randn(16, 1)
for step in range(3):
    opt.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    opt.step()
"""
    ),
    # create_graph=True keeps the graph for the penalty's backward.
    Valid(
        """\
import torch

w = torch.randn(3, requires_grad=True)
x = torch.randn(3)
loss = (w * x).exp().sum()
(g,) = torch.autograd.grad(loss, w, create_graph=True)
total = loss + g.pow(2).sum()
total.backward()
"""
    ),
]

INVALID: list[Invalid] = [
    Invalid(
        """\
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(8, 4)
y = torch.randn(8, 1)
for step in range(3):
    opt.zero_grad()
    loss = F.mse_loss(model(x), y)
    loss.backward()
    opt.step()
    loss.backward()
""",
        line=15,
        error="RuntimeError: Trying to backward through the graph a second time",
    ),
    Invalid(
        """\
import torch

torch.manual_seed(0)
w = torch.randn(3, requires_grad=True)
x = torch.randn(3)
loss = (w * x).exp().sum()
(g,) = torch.autograd.grad(loss, w)
grad_norm = g.norm().item()
loss.backward()
""",
        line=9,
        error="RuntimeError: Trying to backward through the graph a second time",
    ),
    Invalid(
        """\
import torch

x = torch.randn(3, requires_grad=True)
doubled = (x * 2).sum()
doubled.backward()
doubled.backward()
""",
        line=6,
        error="RuntimeError: Trying to backward through the graph a second time",
    ),
    # A saliency value per class from one forward pass: the passes are meant and nothing changes
    # the weights, so retain_graph=True is the preferred repair.
    Invalid(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 3))
x = torch.randn(5, 4)
logits = model(x)
saliency = []
for c in range(3):
    model.zero_grad()
    logits[:, c].sum().backward()
    saliency.append(model[0].weight.grad.abs().sum().item())
""",
        line=11,
        error="RuntimeError: Trying to backward through the graph a second time",
    ),
]

def check_double(ctx: Context, seen: FreedGraphReused) -> None:
    """The same loss backpropagated again: reported at the second backward."""
    if not seen.same:
        return  # two losses sharing a forward: GG102's
    run, first = seen.run, seen.first
    fixes: list[FixRef] = []
    if seen.removable and run.stmt is not None:
        fixes.append(ctx.fix("GG101", "remove-second-backward", "remove-stmt", stmt=ctx.span(run.stmt)))
    if seen.retain_ok:
        fixes.append(retain_fix(ctx, "GG101", first.call))
    fields = {"loss": ctx.text(run.target), "first_line": first.call.lineno}
    ctx.add("GG101", run.call, fields, list(seen.related), fixes, seen.chain)


def check_repeated(ctx: Context, seen: StaleGraphReused) -> None:
    """Passes over one graph meant on purpose (Hessian rows, a saliency map per class): nothing is
    stale, only the backward lacks retain_graph=True; that backward is the statement to change."""
    if not seen.repeats:
        return  # a stale graph: GG103's
    fixes = [retain_fix(ctx, "GG101", seen.run.call)]
    if seen.move is not None:
        fixes.append(ctx.fix("GG101", "move-into-loop", "move-into-loop", **seen.move))
    fields = {"name": seen.name, "built_line": seen.built_line, "backward_line": seen.run.call.lineno}
    ctx.add("GG101", seen.run.call, fields, list(seen.related), fixes, seen.chain, variant="repeated")


CHECKS = {FreedGraphReused: check_double, StaleGraphReused: check_repeated}
