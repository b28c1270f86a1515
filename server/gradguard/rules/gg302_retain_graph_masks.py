"""## What it does
Finds `backward(retain_graph=True)` (or `autograd.grad(..., retain_graph=True)`)
inside a loop where the only reason the flag is needed is one of three bugs:
a graph built before the loop (GG103), state carried across iterations without
`detach()` (GG104), or a GAN generator output reused without `detach()`
(GG105). With the flag set those rules no longer apply as stated (nothing is
freed, so nothing fails the way they describe), so the hint goes on the flag.

## Why is this bad
`retain_graph=True` is the fix the first error message suggests, and it is
almost never the right one. It keeps the old graph alive instead of not
needing it:

- With an optimizer step in the loop, the retained graph still refers to the
  weights' old values, and the crash just moves to the second iteration's
  version check:

  ```
  RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation: [torch.FloatTensor [8, 24]], which is output 0 of AsStrided, is at version 2; expected version 1 instead. Hint: enable anomaly detection to find the operation that failed to compute its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).
  ```

- Without a step, it trains silently wrong and ever slower: carried RNN state
  makes every backward traverse all previous iterations. Measured with a small
  LSTM (32 -> 64, batch 4, 10 steps per chunk): 13, 58 and 208 graph nodes and
  11, 91 and 284 ms per backward at iterations 1, 10 and 40, where a detached
  state stays constant. A pre-loop forward pass instead yields the same stale
  gradient every iteration.

## Example
```python
h = torch.zeros(1, 2, 8)
for step in range(3):
    out, h = rnn(x, h)              # h still points into last step's graph
    loss = criterion(head(out[:, -1]), target)
    loss.backward(retain_graph=True)  # RuntimeError in the second iteration
    optimizer.step()
```

## Fix
Apply the real fix and drop the flag: `h = h.detach()` at the top of the loop
(GG104), move the forward pass into the loop (GG103), or `D(fake.detach())`
in the discriminator step (GG105):

```python
for step in range(3):
    h = h.detach()
    out, h = rnn(x, h)
    loss = criterion(head(out[:, -1]), target)
    loss.backward()
    optimizer.step()
```

Detaching truncates backpropagation through time at iteration boundaries; that
is the standard trade-off of truncated BPTT. Dropping the flag alone turns the
silent cost back into the original error, which is at least honest.

## When it does not fire
When `retain_graph=True` serves a real second pass over the same graph within
one iteration (two losses, a backward then a gradient inspection), when the
loop carries nothing across iterations (then the flag is merely unnecessary),
and when no optimizer steps in the loop or the function around it: several
passes over one forward are then what the code wants (a saliency map per
class, a gradient check), not a training loop.
"""  # noqa: E501 (torch's error messages are quoted verbatim)

from __future__ import annotations

from ..findings import Related
from ..observations import Context, RetainMasksReuse
from .base import UNSAFE, Invalid, Rule, Valid, listed

RULE = Rule(
    code="GG302",
    name="retain-graph-masks-bug",
    summary="`retain_graph=True` in a loop that only hides a graph reused across iterations.",
    message=(
        "`retain_graph=True` only hides a bug here: it keeps {masks} alive into the next iteration, "
        "whose backward runs through it again (wrong gradients, growing memory, an error after "
        "`step()`); fix that reuse and drop `retain_graph=True`"
    ),
    fixes={
        "real-fix": (
            "Fix the reuse and drop `retain_graph=True`",
            "Each iteration backpropagates only its own graph (truncated BPTT for carried state).",
        ),
        "drop-retain-graph": (
            "Drop `retain_graph=True`",
            "Restores the original error, which points at the real bug.",
        ),
    },
    safety={
        "real-fix": (
            UNSAFE,
            "Fixes the reuse `retain_graph=True` hid (a fresh forward, or a detach) and drops it:"
            " what trains changes.",
        ),
        "drop-retain-graph": (
            UNSAFE,
            "Without the real fix, the error `retain_graph=True` hid comes back.",
        ),
    },
)

VALID: list[Valid] = [
    # One forward, one backward per class for its saliency map: no optimizer, nothing trains.
    Valid(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 3))
x = torch.randn(5, 4, requires_grad=True)
scores = model(x)
saliency = []
for c in range(3):
    scores[:, c].sum().backward(retain_graph=True)
    saliency.append(x.grad.abs().clone())
    x.grad = None
"""
    ),
    # Two losses over one graph within an iteration: the flag is needed.
    Valid(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    x = torch.randn(16, 4)
    out = model(x)
    loss_a = out[:, 0].pow(2).mean()
    loss_b = out[:, 1].abs().mean()
    optimizer.zero_grad()
    loss_a.backward(retain_graph=True)
    loss_b.backward()
    optimizer.step()
"""
    ),
    # Carried state, detached each iteration: nothing to mask.
    Valid(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)
rnn = nn.GRU(4, 8, batch_first=True)
head = nn.Linear(8, 1)
optimizer = torch.optim.Adam(list(rnn.parameters()) + list(head.parameters()), lr=1e-3)
h = torch.zeros(1, 2, 8)
for step in range(3):
    h = h.detach()
    out, h = rnn(torch.randn(2, 5, 4), h)
    loss = nn.functional.mse_loss(head(out[:, -1]), torch.randn(2, 1))
    optimizer.zero_grad()
    loss.backward(retain_graph=True)
    optimizer.step()
"""
    ),
    # Outside a loop.
    Valid(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(4, 1)
x = torch.randn(8, 4, requires_grad=True)
loss = model(x).pow(2).mean()
loss.backward(retain_graph=True)
grad_x, = torch.autograd.grad(loss, x)
"""
    ),
]

INVALID: list[Invalid] = [
    # Masks GG104: a GRU hidden state carried across iterations.
    Invalid(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)
rnn = nn.GRU(4, 8, batch_first=True)
head = nn.Linear(8, 1)
optimizer = torch.optim.Adam(list(rnn.parameters()) + list(head.parameters()), lr=1e-3)
h = torch.zeros(1, 2, 8)
for step in range(3):
    x = torch.randn(2, 5, 4)
    target = torch.randn(2, 1)
    out, h = rnn(x, h)
    loss = nn.functional.mse_loss(head(out[:, -1]), target)
    optimizer.zero_grad()
    loss.backward(retain_graph=True)
    optimizer.step()
""",
        line=15,
        error="RuntimeError: one of the variables needed for gradient computation has been modified",
    ),
    # Masks GG103: the forward pass was written once, before the loop.
    Invalid(
        """\
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(4, 16)
        self.fc2 = nn.Linear(16, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(torch.relu(self.fc1(x)))


torch.manual_seed(0)
model = Net()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
x = torch.randn(32, 4)
y = torch.randn(32, 1)
pred = model(x)
for epoch in range(3):
    loss = nn.functional.mse_loss(pred, y)
    optimizer.zero_grad()
    loss.backward(retain_graph=True)
    optimizer.step()
""",
        line=24,
        error="RuntimeError: one of the variables needed for gradient computation has been modified",
    ),
]


def check_masks(ctx: Context, seen: RetainMasksReuse) -> None:
    """The hint goes on the flag, saying which bug it hides; the fix applies the real repair and
    drops the flag together (dropping it alone would turn the hint into a crash)."""
    if seen.kind == "stale":
        masks = f"a graph built before the loop (`{seen.names[0]}`, line {seen.line})"
    elif seen.kind == "carried":
        verb = "carry" if len(seen.names) > 1 else "carries"
        masks = f"the graph that {listed(seen.names)} {verb} (never detached)"
    elif seen.fake is not None:
        # Said as what the code does (a linear probe on fixed features matches the pattern too,
        # with no generator in sight).
        masks = f"the graph behind `{ctx.text(seen.fake)}` (passed to `{seen.disc}` without `.detach()`)"
    else:
        masks = "a graph passed on without `.detach()`"
    fixes = []
    if seen.real is not None:
        drop = {
            "kind": "drop-keyword",
            "params": {"call": ctx.span(seen.first.call).to_json(), "name": "retain_graph"},
        }
        fixes.append(ctx.fix("GG302", "real-fix", "multi", parts=[seen.real, drop]))
    ctx.add(
        "GG302",
        seen.keyword,
        {"masks": masks},
        [
            Related(ctx.span(seen.built), f"graph built here: {ctx.text(seen.built)}", "built"),
            ctx.backward_related(seen.run, "the next iteration backpropagates into it again", "reused"),
        ],
        fixes,
        seen.chain,
        unless_unstepped=seen.unless_unstepped,
    )


CHECKS = {RetainMasksReuse: check_masks}
