"""GG104: loop-carried state reaches backward without being detached.

## What it does

Finds a name that a loop reads before reassigning it from a graph value (an
RNN hidden state `h`, an LSTM `(h, c)` pair, a running average of features)
while each iteration backpropagates a loss that depends on it. The squiggle is
on the read of the carried name inside the loop. With `retain_graph=True` the
kept graph no longer raises by itself (GG302 says what that hides), but an
optimizer step in the loop changes weights it saved, and the next backward
raises after all: that is reported here too.

The same carried graph breaks an attack loop (PGD, DeepFool) that moves an
input along its gradient and sets `x.requires_grad = True` again in the next
iteration: the moved input is no longer a leaf. The squiggle is then on the
statement that keeps the moved value, where `.detach()` belongs.

## Why is this bad

Iteration *n*'s state is the output of iteration *n - 1*'s graph. Iteration
1's backward frees that graph's buffers; iteration 2's loss still reaches
them through the carried state, and torch 2.13 raises:

```text
RuntimeError: Trying to backward through the graph a second time (or directly access saved tensors after they have already been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if you need to access saved tensors after calling backward.
```

In the attack loop the flag raises first:

```text
RuntimeError: you can only change requires_grad flags of leaf variables.
```

## Example

```python
h = torch.zeros(1, 2, 8)
for step in range(3):
    out, h = rnn(torch.randn(2, 5, 4), h)  # GG104: h still holds last step's graph
    loss = F.mse_loss(head(out[:, -1]), target)
    loss.backward()
```

## Fix

Cut the history at the top of each iteration (truncated backpropagation
through time). For an LSTM, detach both members of the state:

```python
for step in range(3):
    h = h.detach()          # LSTM: h, c = h.detach(), c.detach()
    out, h = rnn(torch.randn(2, 5, 4), h)
```

Trade-off: gradients no longer flow across the iteration boundary, so the
model gets no credit assignment further back than one chunk; in exchange each
step's memory and time stay constant. `retain_graph=True` is the wrong fix: it
turns the crash into a graph that grows every iteration, and every backward
walks the whole history again. Measured on torch 2.13 CPU (one thread,
`nn.LSTM(64, 256)`, batch 32, 20-step chunks, no optimizer): 13, 58 and 208
graph nodes at iterations 1, 10 and 40; backward 6 ms per step with detach
against about 3 s per step by iteration 40 with `retain_graph=True`; peak RSS
259 MB against 525 MB. With an `optimizer.step()` in the loop the crash comes
back as an in-place version error ("one of the variables needed for gradient
computation has been modified by an inplace operation").

## When it does not fire

- The state is detached at the top of the loop (or right after backward, as
  `h = h.detach()`; a bare `h.detach()` statement does nothing, see GG112).
- The state is reset every iteration (`h = torch.zeros(...)`, or no initial
  state passed to the RNN).
- The running value is updated under `torch.no_grad()` or from detached inputs.
- Full backpropagation through time: the loop only builds, and one backward
  runs after the loop.
"""  # noqa: E501 (torch's error messages are quoted verbatim)

from __future__ import annotations

import ast

from ..findings import FixRef, Related
from ..observations import CarriedInAttribute, CarriedState, Context, FlagOnNonLeaf
from .base import UNSAFE, Invalid, Rule, Valid, gated, listed

RULE = Rule(
    code="GG104",
    name="carried-state-not-detached",
    summary="State carried across loop iterations drags the previous iteration's graph into backward.",
    message=(
        "`{name}` carries its graph from one iteration into the next: the backward on line "
        "{backward_line} frees that graph, so the next iteration's backward raises; detach `{name}` "
        "at the start of each iteration"
    ),
    variants={
        # A dict or list kept on an object (a cache of embeddings): its stored values carry it.
        "stored": (
            "`{name}` keeps a value with its graph from one iteration into the next: the backward on "
            "line {backward_line} frees that graph, so the next iteration's backward raises; store a "
            "detached copy (`.detach()`), or compute it again in each iteration"
        ),
        # Several names carry it (an LSTM's `h, c`).
        "several": (
            "{names} carry their graph from one iteration into the next: the backward on line "
            "{backward_line} frees that graph, so the next iteration's backward raises; detach them "
            "at the start of each iteration"
        ),
        # The backward runs only in some iterations (`if (t + 1) % 4 == 0:`): the state is carried
        # past it into the iterations after, where the next run of that backward fails.
        "gated": (
            "`{name}` carries its graph past the backward on line {backward_line}, which frees that "
            "graph, so the next run of that backward raises; detach `{name}` right after it"
        ),
        "several-gated": (
            "{names} carry their graph past the backward on line {backward_line}, which frees that "
            "graph, so the next run of that backward raises; detach them right after it"
        ),
        # retain_graph=True keeps the graph, but an optimizer step changes weights it saved.
        "stepped": (
            "`{name}` carries its graph from one iteration into the next: retain_graph=True keeps "
            "that graph, but the step on line {step_line} changes weights it saved, so the next "
            "iteration's backward raises; detach `{name}` at the start of each iteration"
        ),
        # An attack's image moved along its gradient, then flagged again in the next iteration.
        "flag": (
            "`{name}` carries its graph from one iteration into the next: it is no longer a leaf "
            "tensor when line {flag_line} sets its `requires_grad` again, which raises; detach it "
            "here, where it is carried"
        ),
        "several-stepped": (
            "{names} carry their graph from one iteration into the next: retain_graph=True keeps "
            "that graph, but the step on line {step_line} changes weights it saved, so the next "
            "iteration's backward raises; detach them at the start of each iteration"
        ),
    },
    fixes={
        "detach-carried": (
            "Detach the carried state at the top of each iteration",
            "Gradients stop at the iteration boundary (truncated BPTT); memory and time per step "
            "stay constant.",
        ),
        "detach-after-backward": (
            "Detach the carried state right after the backward",
            "Gradients stop at the end of each chunk the backward closes; memory and time per chunk "
            "stay constant.",
        ),
        "detach-kept": (
            "Detach the value where it is carried into the next iteration",
            "The next iteration starts from a leaf tensor; nothing backpropagates into the earlier "
            "iterations' graph, which the flag would have refused anyway.",
        ),
    },
    safety={
        "detach-carried": (
            UNSAFE,
            "Gradients stop at the iteration boundary (truncated backpropagation through time): "
            "earlier iterations no longer receive gradient from later losses.",
        ),
        "detach-after-backward": (
            UNSAFE,
            "Gradients stop at the chunk boundary (truncated backpropagation through time): a later "
            "chunk's loss no longer reaches the frames before it.",
        ),
        "detach-kept": (
            UNSAFE,
            "Gradients stop at the iteration boundary: a later loss no longer reaches the "
            "computation that produced the carried value.",
        ),
    },
)

VALID: list[Valid] = [
    # Truncated BPTT: detach at the loop top.
    Valid(
        """\
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
rnn = nn.GRU(4, 8, batch_first=True)
head = nn.Linear(8, 1)
opt = torch.optim.SGD([*rnn.parameters(), *head.parameters()], lr=0.1)
h = torch.zeros(1, 2, 8)
for step in range(3):
    h = h.detach()
    out, h = rnn(torch.randn(2, 5, 4), h)
    loss = F.mse_loss(head(out[:, -1]), torch.randn(2, 1))
    opt.zero_grad()
    loss.backward()
    opt.step()
"""
    ),
    # Fresh state for every sequence.
    Valid(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)
lstm = nn.LSTM(3, 6)
opt = torch.optim.SGD(lstm.parameters(), lr=0.1)
for seq in range(3):
    h = torch.zeros(1, 1, 6)
    c = torch.zeros(1, 1, 6)
    out, (h, c) = lstm(torch.randn(4, 1, 3), (h, c))
    loss = out.pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
"""
    ),
    # The running average is kept out of the graph.
    Valid(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)
encoder = nn.Linear(5, 3)
opt = torch.optim.SGD(encoder.parameters(), lr=0.1)
ema = torch.zeros(3)
for step in range(3):
    z = encoder(torch.randn(8, 5)).mean(0)
    with torch.no_grad():
        ema = 0.9 * ema + 0.1 * z
    loss = (z - ema).pow(2).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
"""
    ),
    # Full BPTT: build over the loop, one backward after it.
    Valid(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)
cell = nn.RNNCell(3, 5)
opt = torch.optim.SGD(cell.parameters(), lr=0.1)
h = torch.zeros(2, 5)
for t in range(4):
    h = cell(torch.randn(2, 3), h)
loss = h.pow(2).sum()
opt.zero_grad()
loss.backward()
opt.step()
"""
    ),
    # The same attack done right: each step starts from a detached image.
    Valid(
        """\
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3))
x = torch.rand(4, 8)
y = torch.randint(0, 3, (4,))
x_adv = x.clone()
for _ in range(3):
    x_adv.requires_grad = True
    loss = F.cross_entropy(model(x_adv), y)
    grad = torch.autograd.grad(loss, x_adv)[0]
    x_adv = torch.clamp(x_adv.detach() + 0.01 * grad.sign(), 0, 1)
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
rnn = nn.GRU(4, 8, batch_first=True)
head = nn.Linear(8, 1)
opt = torch.optim.SGD([*rnn.parameters(), *head.parameters()], lr=0.1)
h = torch.zeros(1, 2, 8)
for step in range(3):
    out, h = rnn(torch.randn(2, 5, 4), h)
    loss = F.mse_loss(head(out[:, -1]), torch.randn(2, 1))
    opt.zero_grad()
    loss.backward()
    opt.step()
""",
        line=11,
        error="RuntimeError: Trying to backward through the graph a second time",
    ),
    # LSTM tuple state: both h and c carry the graph.
    Invalid(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)
lstm = nn.LSTM(3, 6)
head = nn.Linear(6, 3)
opt = torch.optim.Adam([*lstm.parameters(), *head.parameters()], lr=1e-3)
h = torch.zeros(1, 1, 6)
c = torch.zeros(1, 1, 6)
for chunk in range(3):
    x = torch.randn(4, 1, 3)
    out, (h, c) = lstm(x, (h, c))
    loss = head(out).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
""",
        line=12,
        error="RuntimeError: Trying to backward through the graph a second time",
    ),
    # retain_graph=True silenced the first error; the step then changes weights the kept graph
    # saved, and the next iteration's backward raises the in-place version error instead.
    Invalid(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)
rnn = nn.LSTM(4, 8, batch_first=True)
head = nn.Linear(8, 4)
optimizer = torch.optim.SGD(list(rnn.parameters()) + list(head.parameters()), lr=0.01)
h = torch.zeros(1, 2, 8)
c = torch.zeros(1, 2, 8)
for step in range(3):
    optimizer.zero_grad()
    out, (h, c) = rnn(torch.randn(2, 5, 4), (h, c))
    loss = nn.functional.mse_loss(head(out), torch.randn(2, 5, 4))
    loss.backward(retain_graph=True)
    optimizer.step()
""",
        line=12,
        error="RuntimeError: one of the variables needed for gradient computation has been modified",
    ),
    # A running average of features.
    Invalid(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)
encoder = nn.Linear(5, 3)
opt = torch.optim.SGD(encoder.parameters(), lr=0.1)
ema = torch.zeros(3)
for step in range(3):
    z = encoder(torch.randn(8, 5)).mean(0)
    ema = 0.9 * ema + 0.1 * z
    loss = (z - ema).pow(2).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
""",
        line=10,
        error="RuntimeError: Trying to backward through the graph a second time",
    ),
    # A PGD attack moves its image along the gradient without detaching it: the next iteration's
    # `requires_grad = True` meets a tensor with a graph.
    Invalid(
        """\
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3))
x = torch.rand(4, 8)
y = torch.randint(0, 3, (4,))
x_adv = x.clone()
for _ in range(3):
    x_adv.requires_grad = True
    loss = F.cross_entropy(model(x_adv), y)
    grad = torch.autograd.grad(loss, x_adv)[0]
    x_adv = torch.clamp(x_adv + 0.01 * grad.sign(), 0, 1)
""",
        line=14,
        error="RuntimeError: you can only change requires_grad flags of leaf variables",
    ),
    # Four-frame chunks: the backward runs every fourth frame, the state is carried past it.
    Invalid(
        """\
import torch
import torch.nn as nn

cell = nn.GRUCell(4, 8)
opt = torch.optim.SGD(cell.parameters(), lr=0.1)
frames = torch.randn(8, 2, 4)
h = torch.zeros(2, 8)
loss = 0
for t in range(8):
    h = cell(frames[t], h)
    loss = loss + h.pow(2).mean()
    if (t + 1) % 4 == 0:
        opt.zero_grad()
        loss.backward()
        opt.step()
        loss = 0
""",
        line=10,
        error="RuntimeError: Trying to backward through the graph a second time",
    ),
    # The same with an LSTM cell's two states.
    Invalid(
        """\
import torch
import torch.nn as nn

cell = nn.LSTMCell(4, 8)
opt = torch.optim.SGD(cell.parameters(), lr=0.1)
frames = torch.randn(6, 2, 4)
h, c = torch.zeros(2, 8), torch.zeros(2, 8)
for t in range(6):
    h, c = cell(frames[t], (h, c))
    if t % 3 == 2:
        opt.zero_grad()
        h.pow(2).mean().backward()
        opt.step()
""",
        line=9,
        error="RuntimeError: Trying to backward through the graph a second time",
    ),
]


def check_flag(ctx: Context, seen: FlagOnNonLeaf) -> None:
    """Setting `requires_grad` of a value the previous iteration built raises: the cause is where
    that value is kept for the next iteration, the fix a `.detach()` there."""
    kept = seen.carried
    if kept is None:
        return  # not carried by a loop: another story, not told by this rule
    name = ctx.text(seen.target.value)
    related = [Related(ctx.span(seen.stmt), "raises here in the next iteration", "reused")]
    fixes = []
    if isinstance(kept, ast.Assign) and len(kept.targets) == 1 and ctx.text(kept.targets[0]) == name:
        fixes.append(ctx.fix("GG104", "detach-kept", "append", expr=ctx.span(kept.value), suffix=".detach()"))
    ctx.add("GG104", kept, {"name": name, "flag_line": seen.stmt.lineno}, related, fixes, variant="flag")


def check_carried(ctx: Context, seen: CarriedState) -> None:
    """Reported at the first read of the carried name in the loop, with the detach at the loop's
    top when the engine found it safe."""
    names = seen.names
    fixes: list[FixRef] = []
    # Carried past a backward that runs every k-th iteration: the detach goes right after it.
    chunked = seen.step is None and gated(seen.run)
    if seen.detach is not None and not chunked:
        top = ctx.span(seen.loop)
        fixes.append(ctx.fix("GG104", "detach-carried", "insert-loop-top", loop=top, text=seen.detach))
    stmt = seen.run.stmt
    if seen.detach is not None and chunked and stmt is not None and _inside(stmt, seen.loop):
        # Right after that backward, in the loop's own code: the next chunk starts from a leaf.
        after = ctx.span(stmt)
        detach = seen.detach
        fixes.append(ctx.fix("GG104", "detach-after-backward", "insert-after", anchor=after, text=detach))
    fields: dict[str, object] = {
        "name": names[0],
        "names": listed(names),
        "backward_line": seen.run.call.lineno,
    }
    variant = "several" if len(names) > 1 else None
    if chunked:
        variant = "several-gated" if len(names) > 1 else "gated"
    if seen.step is not None:
        fields["step_line"] = getattr(seen.step, "lineno", "?")
        variant = "several-stepped" if len(names) > 1 else "stepped"
    covers = (seen.group, frozenset(names))
    ctx.add("GG104", seen.anchor, fields, list(seen.related), fixes, seen.chain, variant, covers=covers)


def _inside(stmt: ast.AST, loop: ast.AST) -> bool:
    first, last = getattr(loop, "lineno", 0), getattr(loop, "end_lineno", 0) or 0
    return first < getattr(stmt, "lineno", 0) <= last


def check_attribute(ctx: Context, seen: CarriedInAttribute) -> None:
    """Reported at the statement that stores the graph-carrying value (no fix written: the
    attribute may be set in another method than the loop's)."""
    fields = {"name": seen.name, "backward_line": seen.run.call.lineno}
    variant = "stored" if seen.stored else None
    ctx.add("GG104", seen.stmt, fields, list(seen.related), [], seen.chain, variant=variant)


CHECKS = {FlagOnNonLeaf: check_flag, CarriedState: check_carried, CarriedInAttribute: check_attribute}
