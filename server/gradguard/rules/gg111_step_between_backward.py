"""## What it does
Finds `optimizer.step()` placed between two backward passes over one graph that
was kept alive with `retain_graph=True` (two losses sharing a forward pass, each
backpropagated separately). Also finds a step that changes weights a loss built
before it saved, when that loss is backpropagated only after the step (an actor
loss computed through the critic, then the critic's step, then the actor's
backward), where a backward certainly gave those weights a gradient first.

## Why is this bad
`step()` updates the parameters in place. The second backward still needs the
old values of the weights the forward pass saved, sees that their version
counter moved, and stops (the `[8, 2]` tensor is the last layer's `[2, 8]`
weight, saved transposed):

```
RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation: [torch.FloatTensor [8, 2]], which is output 0 of AsStrided, is at version 2; expected version 1 instead. Hint: enable anomaly detection to find the operation that failed to compute its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).
```

Where no saved weight happens to be involved, the second backward runs, but its
gradient belongs to the weights before the step, and it lands in `.grad` on top
of the first loss's gradient, which the step has already applied once.

## Example
```python
out = model(x)
loss_a = out[:, 0].pow(2).mean()
loss_b = out[:, 1].abs().mean()
loss_a.backward(retain_graph=True)
optimizer.step()      # changes the weights loss_b's graph saved
loss_b.backward()     # RuntimeError
```

## Fix
Finish every backward pass over the graph, then step once:

```python
loss_a.backward(retain_graph=True)
loss_b.backward()
optimizer.step()
```

The two gradients are now summed into one update, which is what a shared forward
pass means. If you really want two sequential updates, run a fresh forward pass
after the first `step()` (and drop `retain_graph`).

For a loss built before another network's step (actor-critic, SAC), the fix
moves the statement that computes the loss to just before its backward, so it is
computed from the stepped weights; it is offered only where nothing in between
reads the loss or rebinds a name that statement reads. Moving the step after the
late backward instead would let that loss's gradient into the stepped network
(the actor loss would train the critic). For the same reason the step is not
moved when another optimizer steps after the second backward (a GAN's D step
between its loss and G's): the message asks to compute the second loss again
after the step.

## When it does not fire
When the second loss comes from a forward pass made after the step, when
nothing steps between the two backward calls, or when the two backward calls
share no graph.
"""  # noqa: E501 (torch's error messages are quoted verbatim)

from __future__ import annotations

from ..findings import FixRef, Related
from ..observations import Context, StepBeforeBackward
from .base import UNSAFE, Invalid, Rule, Valid

RULE = Rule(
    code="GG111",
    name="step-between-backward",
    summary="`optimizer.step()` between two backward passes over one graph changes weights the second needs.",
    message=(
        "`{optimizer}.step()` runs between the backward on line {first_line} and the backward on line "
        "{second_line}, which go through the same graph: the step changes in place weights that "
        "graph saved, so the second backward raises; move the step after the last backward"
    ),
    variants={
        # Another optimizer steps after the second backward: that loss is meant for it.
        "other-optimizer": (
            "`{optimizer}.step()` runs between the backward on line {first_line} and the backward on "
            "line {second_line}, which go through the same graph: the step changes in place weights "
            "that graph saved, so the second backward raises; compute the second loss again after "
            "the step (moved after that backward, the step would let that loss train `{optimizer}`'s "
            "parameters)"
        ),
        "built-before": (
            "`{optimizer}.step()` changes in place weights that the graph of `{loss}` saved on line "
            "{saved_line}, so the backward on line {second_line} raises; compute `{loss}` after the step"
        ),
    },
    fixes={
        "step-after-backward": (
            "Move the step after the last backward",
            "Both losses' gradients go into one update instead of two sequential ones.",
        ),
        "recompute-after-step": (
            "Compute the loss after the step",
            "The loss is now computed from the stepped weights (the critic after its update), as a "
            "fresh forward would; its gradient still reaches the same parameters.",
        ),
    },
    safety={
        "step-after-backward": (
            UNSAFE,
            "Both losses' gradients now go into one update instead of two sequential ones: the "
            "training changes.",
        ),
        "recompute-after-step": (
            UNSAFE,
            "The loss is computed from the stepped weights, so its value and gradient differ from"
            " what the code computed before.",
        ),
    },
)

VALID: list[Valid] = [
    # Both backward passes first, then one step.
    Valid(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
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
    # Two sequential updates, each with its own forward pass.
    Valid(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(16, 4)
loss_a = model(x)[:, 0].pow(2).mean()
optimizer.zero_grad()
loss_a.backward()
optimizer.step()
loss_b = model(x)[:, 1].abs().mean()
optimizer.zero_grad()
loss_b.backward()
optimizer.step()
"""
    ),
    # A step between backward passes of two separate graphs, in a loop.
    Valid(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(3):
    x = torch.randn(16, 4)
    loss = model(x).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
"""
    ),
    # Actor-critic done in order: the actor loss is computed after the critic's step.
    Valid(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)
actor = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 2))
critic = nn.Sequential(nn.Linear(5, 8), nn.Tanh(), nn.Linear(8, 1))
opt_actor = torch.optim.Adam(actor.parameters(), lr=1e-3)
opt_critic = torch.optim.Adam(critic.parameters(), lr=1e-3)
states = torch.randn(16, 3)
actions = actor(states)
critic_loss = (critic(torch.cat([states, actions.detach()], dim=1)) - 1).pow(2).mean()
opt_critic.zero_grad()
critic_loss.backward()
opt_critic.step()
actor_loss = -critic(torch.cat([states, actions], dim=1)).mean()
opt_actor.zero_grad()
actor_loss.backward()
opt_actor.step()
"""
    ),
]

INVALID: list[Invalid] = [
    Invalid(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(16, 4)
out = model(x)
loss_a = out[:, 0].pow(2).mean()
loss_b = out[:, 1].abs().mean()
optimizer.zero_grad()
loss_a.backward(retain_graph=True)
optimizer.step()
loss_b.backward()
""",
        line=13,
        error="RuntimeError: one of the variables needed for gradient computation has been modified",
    ),
    # A shared encoder with two heads, stepped after the first head's loss.
    Invalid(
        """\
import torch
import torch.nn as nn
import torch.nn.functional as F


class TwoHeads(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.encoder = nn.Linear(4, 8)
        self.cls = nn.Linear(8, 3)
        self.reg = nn.Linear(8, 1)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = torch.relu(self.encoder(x))
        return self.cls(h), self.reg(h)


torch.manual_seed(0)
model = TwoHeads()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
x = torch.randn(16, 4)
labels = torch.randint(0, 3, (16,))
targets = torch.randn(16, 1)
for step in range(2):
    logits, value = model(x)
    cls_loss = F.cross_entropy(logits, labels)
    reg_loss = F.mse_loss(value, targets) + 0.1 * cls_loss
    optimizer.zero_grad()
    cls_loss.backward(retain_graph=True)
    optimizer.step()
    reg_loss.backward()
""",
        line=30,
        error="RuntimeError: one of the variables needed for gradient computation has been modified",
    ),
    # Actor-critic: the actor loss goes through the critic, whose step runs before the actor's backward.
    Invalid(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)
actor = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 2))
critic = nn.Sequential(nn.Linear(5, 8), nn.Tanh(), nn.Linear(8, 1))
opt_actor = torch.optim.Adam(actor.parameters(), lr=1e-3)
opt_critic = torch.optim.Adam(critic.parameters(), lr=1e-3)
states = torch.randn(16, 3)
actions = actor(states)
actor_loss = -critic(torch.cat([states, actions], dim=1)).mean()
critic_loss = (critic(torch.cat([states, actions.detach()], dim=1)) - 1).pow(2).mean()
opt_critic.zero_grad()
critic_loss.backward()
opt_critic.step()
opt_actor.zero_grad()
actor_loss.backward()
opt_actor.step()
""",
        line=15,
        error="RuntimeError: one of the variables needed for gradient computation has been modified",
    ),
]


def check_step(ctx: Context, seen: StepBeforeBackward) -> None:
    """Reported at the step, the statement that changed the weights too early."""
    run, first = seen.run, seen.first
    saved = Related(ctx.span(seen.built), f"saved for backward here: {ctx.text(seen.built)}", "built")
    fails = ctx.backward_related(run, "raises here: it needs the weights from before the step", "reused")
    fixes: list[FixRef] = []
    if seen.rebuild is not None and run.stmt is not None:
        # Recompute the loss from the stepped weights. Moving the step instead would let this
        # loss's gradient into that optimizer's parameters (an actor loss training the critic).
        fixes.append(
            ctx.fix(
                "GG111",
                "recompute-after-step",
                "move-before",
                stmt=ctx.span(seen.rebuild),
                anchor=ctx.span(run.stmt),
            )
        )
    if seen.step_movable and run.stmt is not None:
        where = {"stmt": ctx.span(seen.step), "anchor": ctx.span(run.stmt)}
        fixes.append(ctx.fix("GG111", "step-after-backward", "move-after", **where))
    if first is None or run.call is first.call:
        # The graph's own story: saved before the step, backpropagated after it (also one backward
        # run again in the next iteration over the graph it kept, not "between line N and line N").
        fields = {
            "optimizer": ctx.text(seen.optimizer),
            "loss": ctx.text(seen.loss or run.target),
            "saved_line": getattr(seen.built, "lineno", "?"),
            "second_line": (seen.backward_at or run.call).lineno,
        }
        related = [saved, fails]
        if seen.backward_at is not None:
            # Both in helpers: the call that backpropagates, where the user reads the order.
            told = f"backpropagated through this call: {ctx.text(seen.loss)}"
            related.insert(1, Related(ctx.span(seen.backward_at), told, "reused"))
        ctx.add("GG111", seen.step, fields, related, fixes, variant="built-before")
        return
    fields = {
        "optimizer": ctx.text(seen.optimizer),
        "first_line": first.call.lineno,
        "second_line": run.call.lineno,
    }
    kept = ctx.backward_related(first, "first backward: retain_graph=True keeps the graph", "freed")
    variant = "other-optimizer" if seen.other_step else None
    ctx.add("GG111", seen.step, fields, [kept, saved, fails], fixes, variant=variant)


CHECKS = {StepBeforeBackward: check_step}
