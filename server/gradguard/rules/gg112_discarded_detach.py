"""## What it does
Finds a `.detach()` call used as a statement on its own, such as `h.detach()`,
whose result is thrown away.

## Why is this bad
`detach()` is not in place: it returns a new tensor that shares the data but
has no graph, and leaves `h` exactly as it was. The line does nothing, while
reading as if it cut the graph. What follows depends on why it was written:

- In truncated backpropagation through time the hidden state keeps its graph,
  and the second iteration's backward reaches the freed first iteration:

  ```
  RuntimeError: Trying to backward through the graph a second time (or directly access saved tensors after they have already been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if you need to access saved tensors after calling backward.
  ```

- For a bootstrapped target (TD learning, self-distillation) nothing fails:
  gradients silently flow into the target too and the update is wrong.

## Example
```python
for step in range(3):
    h.detach()            # no effect
    out, h = rnn(x, h)
    loss = criterion(head(out[:, -1]), target)
    loss.backward()       # RuntimeError in the second iteration
```

## Fix
Assign the result back:

```python
h = h.detach()
```

No trade-off: this is what the line meant. (`h.detach_()` detaches in place,
but raises `RuntimeError: Can't detach views in-place. Use detach() instead.`
on views such as `out[-1]`; the assignment always works.)

## When it does not fire
When the result is used (`h = h.detach()`, `hs.append(h.detach())`,
`print(h.detach())`) and for the in-place `h.detach_()`.
"""  # noqa: E501 (torch's error messages are quoted verbatim)

from __future__ import annotations

import ast

from ..observations import Context, DiscardedDetach
from .base import UNSAFE, Invalid, Rule, Valid

RULE = Rule(
    code="GG112",
    name="discarded-detach",
    summary="`x.detach()` as a statement does nothing; the result must be assigned.",
    message=(
        "`{name}.detach()` returns a detached copy, which this line throws away, so `{name}` keeps "
        "its graph; write `{name} = {name}.detach()`"
    ),
    variants={
        # Not loop-carried state: assigning the detach may cut a gradient that should flow.
        "elsewhere": (
            "`{name}.detach()` returns a detached copy, which this line throws away, so `{name}` keeps "
            "its graph; use `{name}.detach()` where the gradient must stop, or assign it back if no "
            "loss should train through `{name}`"
        ),
    },
    fixes={
        "assign-detach": (
            "Assign the detached tensor back to its name",
            "What the statement meant: gradients stop at this point from now on.",
        ),
    },
    safety={
        "assign-detach": (
            UNSAFE,
            "The name now holds a detached tensor: gradients stop there, which is what the "
            "statement meant but changes what trains.",
        ),
    },
)

VALID: list[Valid] = [
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
    x = torch.randn(2, 5, 4)
    target = torch.randn(2, 1)
    h = h.detach()
    out, h = rnn(x, h)
    loss = nn.functional.mse_loss(head(out[:, -1]), target)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
"""
    ),
    # The detached value is used.
    Valid(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)
encoder = nn.Linear(4, 8)
states = []
for step in range(3):
    h = torch.tanh(encoder(torch.randn(2, 4)))
    states.append(h.detach())
    h.sum().backward()
"""
    ),
    # In-place detach on a tensor that is not a view.
    Valid(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)
cell = nn.GRUCell(4, 8)
optimizer = torch.optim.SGD(cell.parameters(), lr=0.1)
h = torch.zeros(2, 8)
for step in range(3):
    h.detach_()
    h = cell(torch.randn(2, 4), h)
    loss = h.pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
"""
    ),
]

INVALID: list[Invalid] = [
    # Truncated BPTT that never truncates.
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
    h.detach()
    out, h = rnn(x, h)
    loss = nn.functional.mse_loss(head(out[:, -1]), target)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
""",
        line=12,
        error="RuntimeError: Trying to backward through the graph a second time",
    ),
    # An online agent's recurrent state, "detached" at the end of each step.
    Invalid(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)
cell = nn.GRUCell(3, 6)
policy = nn.Linear(6, 2)
opt = torch.optim.SGD(list(cell.parameters()) + list(policy.parameters()), lr=0.01)
h = torch.zeros(1, 6)
for t in range(4):
    obs = torch.randn(1, 3)
    h = cell(obs, h)
    loss = -torch.log_softmax(policy(h), dim=-1)[0, 0]
    opt.zero_grad()
    loss.backward()
    opt.step()
    h.detach()
""",
        line=16,
        error="RuntimeError: Trying to backward through the graph a second time",
    ),
]


def check_discarded(ctx: Context, seen: DiscardedDetach) -> None:
    func = seen.call.func
    assert isinstance(func, ast.Attribute)
    target = ctx.text(func.value)
    fixes = []
    # Assigning the detach cuts every gradient that flows through the name from then on: the
    # repair for state a loop carries (truncated backpropagation through time), but elsewhere it
    # may cut the only path to a network that trains (a GAN's fake, an advantage shared with the
    # critic's loss), so no fix is offered there.
    if seen.carried:
        fixes.append(
            ctx.fix(
                "GG112",
                "assign-detach",
                "replace-stmt",
                stmt=ctx.span(seen.stmt),
                text=f"{target} = {target}.detach()",
            )
        )
    ctx.add("GG112", seen.stmt, {"name": target}, [], fixes, variant=None if seen.carried else "elsewhere")


CHECKS = {DiscardedDetach: check_discarded}
