"""GG102: two losses share saved buffers and are backpropagated one after the other.

## What it does

Finds two losses computed from one shared forward expression (a common
encoder, a trunk feeding two heads, actor and critic on one body) whose
backward passes run separately, the first without `retain_graph=True`. The
second backward is reported. A loop that backpropagates a loss per head or per
layer of one forward, with the optimizer's step after the loop, is such a pair
of passes at its second iteration.

## Why is this bad

The first backward walks the shared part and frees what its nodes saved. The
second loss reaches the same nodes and torch 2.13 raises:

```text
RuntimeError: Trying to backward through the graph a second time (or directly access saved tensors after they have already been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if you need to access saved tensors after calling backward.
```

## Example

```python
h = torch.relu(encoder(x))
cls_loss = F.cross_entropy(cls_head(h), labels)
reg_loss = F.mse_loss(reg_head(h), target)
cls_loss.backward()
reg_loss.backward()  # GG102: the encoder's buffers are gone
```

## Fix

Backpropagate once through the sum (or a weighted sum) of the losses. The
gradients are identical to two passes, the shared part is walked only once,
and nothing has to be kept alive:

```python
(cls_loss + reg_loss).backward()
```

`torch.autograd.backward([cls_loss, reg_loss])` does the same. Keep
`retain_graph=True` on the first backward only when you need each loss's
gradient on its own in between (per-task gradient norms, PCGrad-style
projection). Its cost: the shared part's buffers stay in memory until both
losses are gone, and the shared part is traversed twice.

When an optimizer steps between the two passes (a discriminator's step, then a
generator loss built on the same stored prediction), neither is a repair: the
sum would mix the two updates, and a kept graph holds values from before the
step. The message then says to compute the shared part again, after the step,
for the second loss, and the fix does so just before that loss's backward
when the statements allow it.

## When it does not fire

- The losses come from disjoint graphs (two separate models).
- The shared part saves nothing (only `+`, `-`, `sum`, `mean`, views, basic
  slicing). Advanced indexing with a tensor or list of indices does save them.
- The first backward passes `retain_graph=True`.
"""  # noqa: E501 (torch's error messages are quoted verbatim)

from __future__ import annotations

from typing import Any

from ..findings import FixRef, Related
from ..observations import Context, FreedGraphReused
from .base import UNSAFE, Invalid, Rule, Valid, retain_fix

RULE = Rule(
    code="GG102",
    name="shared-graph-separate-backward",
    summary="Two losses built on one shared forward are backpropagated separately.",
    message=(
        "`{loss}` and `{other}` are both computed from `{shared}` (line {shared_line}): the backward "
        "of `{other}` on line {first_line} freed that shared graph, so this backward raises; "
        "backpropagate their sum once, or pass `retain_graph=True` to the first backward"
    ),
    variants={
        # An optimizer step ran between the two backward passes (a D step, then the G loss).
        "stepped": (
            "`{loss}` and `{other}` are both computed from `{shared}` (line {shared_line}): the "
            "backward of `{other}` on line {first_line} freed that shared graph, so this backward "
            "raises; compute `{shared}` again for `{loss}`, after the step on line {step_line}"
        ),
        # One name for every loss of a loop (`for loss in losses.values(): loss.backward()`).
        "loop": (
            "every `{loss}` of this loop is computed from `{shared}` (line {shared_line}): this "
            "backward frees that shared graph for the first `{loss}`, so it raises for the next one; "
            "backpropagate the sum of the losses once, after the loop"
        ),
    },
    fixes={
        "recompute-shared": (
            "Compute the shared part and the loss again after the step",
            "The second loss sees the stepped weights, as a fresh forward pass would.",
        ),
        "sum-losses": (
            "Backpropagate the sum of the losses once",
            "Same gradients in one pass; you can no longer look at each loss's gradient separately.",
        ),
        "retain-graph": (
            "Pass retain_graph=True to the first backward",
            "The shared part's buffers stay in memory until both losses are dropped, "
            "and the shared part is traversed twice.",
        ),
    },
    safety={
        "recompute-shared": (
            UNSAFE,
            "The shared part runs a second time (a second forward pass through it, and new random "
            "numbers if it draws any); the first loss's graph is unchanged.",
        ),
        "sum-losses": (
            UNSAFE,
            "The summed backward gives the same gradients only if nothing between the two "
            "backwards reads, clips or steps them; gradguard does not check that yet.",
        ),
        "retain-graph": (
            UNSAFE,
            "The shared part's saved tensors stay in memory until the second backward, and code "
            "between the two passes sees partial gradients as before.",
        ),
    },
)

VALID: list[Valid] = [
    # One backward through the sum.
    Valid(
        """\
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
encoder = nn.Linear(6, 8)
cls_head = nn.Linear(8, 3)
reg_head = nn.Linear(8, 1)
params = [*encoder.parameters(), *cls_head.parameters(), *reg_head.parameters()]
opt = torch.optim.SGD(params, lr=0.1)
x = torch.randn(5, 6)
labels = torch.tensor([0, 1, 2, 1, 0])
target = torch.randn(5, 1)
h = torch.relu(encoder(x))
cls_loss = F.cross_entropy(cls_head(h), labels)
reg_loss = F.mse_loss(reg_head(h), target)
opt.zero_grad()
(cls_loss + 0.5 * reg_loss).backward()
opt.step()
"""
    ),
    # Two losses on disjoint graphs.
    Valid(
        """\
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
actor = nn.Linear(4, 2)
critic = nn.Linear(4, 1)
obs = torch.randn(6, 4)
returns = torch.randn(6, 1)
actions = torch.tensor([0, 1, 1, 0, 1, 0])
policy_loss = F.cross_entropy(actor(obs), actions)
value_loss = F.mse_loss(critic(obs), returns)
policy_loss.backward()
value_loss.backward()
"""
    ),
    # Per-loss gradients are really wanted in between: retain on the first.
    Valid(
        """\
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
encoder = nn.Linear(6, 8)
cls_head = nn.Linear(8, 3)
reg_head = nn.Linear(8, 1)
x = torch.randn(5, 6)
labels = torch.tensor([0, 1, 2, 1, 0])
target = torch.randn(5, 1)
h = torch.relu(encoder(x))
cls_loss = F.cross_entropy(cls_head(h), labels)
reg_loss = F.mse_loss(reg_head(h), target)
cls_loss.backward(retain_graph=True)
cls_norm = encoder.weight.grad.norm().item()
encoder.zero_grad()
reg_loss.backward()
reg_norm = encoder.weight.grad.norm().item()
"""
    ),
    # The shared part saves nothing: a basic slice of a leaf.
    Valid(
        """\
import torch

table = torch.randn(5, 3, requires_grad=True)
rows = table[1:3]
first = rows.sum()
second = rows.mean()
first.backward()
second.backward()
"""
    ),
    # An index shaped like the node features (`expand_as`) takes their shape, not their graph: the
    # second loss shares nothing with the first.
    Valid(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)
encoder = nn.Linear(4, 8)
x = torch.randn(5, 4)
dst = torch.tensor([1, 0, 2, 1, 0])
h = encoder(x)
index = dst.view(-1, 1).expand_as(h)
recon = h.pow(2).mean()
recon.backward()
pooled = torch.zeros(3, 8).scatter_add(0, index, encoder(x))
pooled.pow(2).sum().backward()
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
encoder = nn.Linear(6, 8)
cls_head = nn.Linear(8, 3)
reg_head = nn.Linear(8, 1)
params = [*encoder.parameters(), *cls_head.parameters(), *reg_head.parameters()]
opt = torch.optim.SGD(params, lr=0.1)
x = torch.randn(5, 6)
labels = torch.tensor([0, 1, 2, 1, 0])
target = torch.randn(5, 1)
h = torch.relu(encoder(x))
cls_loss = F.cross_entropy(cls_head(h), labels)
reg_loss = F.mse_loss(reg_head(h), target)
opt.zero_grad()
cls_loss.backward()
reg_loss.backward()
opt.step()
""",
        line=19,
        error="RuntimeError: Trying to backward through the graph a second time",
    ),
    Invalid(
        """\
import torch
import torch.nn as nn
import torch.nn.functional as F


class ActorCritic(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(4, 16)
        self.policy = nn.Linear(16, 2)
        self.value = nn.Linear(16, 1)

    def forward(self, obs):
        feats = torch.tanh(self.body(obs))
        return self.policy(feats), self.value(feats)


torch.manual_seed(0)
net = ActorCritic()
opt = torch.optim.Adam(net.parameters(), lr=1e-3)
obs = torch.randn(6, 4)
actions = torch.tensor([0, 1, 1, 0, 1, 0])
returns = torch.randn(6, 1)
for step in range(2):
    logits, value = net(obs)
    policy_loss = F.cross_entropy(logits, actions)
    value_loss = F.mse_loss(value, returns)
    opt.zero_grad()
    policy_loss.backward()
    value_loss.backward()
    opt.step()
""",
        line=30,
        error="RuntimeError: Trying to backward through the graph a second time",
    ),
    # A diversity term from the eigenvalues of the shared features (GDPP-style): eigh's outputs
    # carry the encoder's graph, which the task loss's backward already freed.
    Invalid(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)
encoder = nn.Linear(6, 4)
head = nn.Linear(4, 1)
optimizer = torch.optim.Adam([*encoder.parameters(), *head.parameters()], lr=1e-3)
x = torch.randn(8, 6)
feat = torch.tanh(encoder(x))
task_loss = head(feat).pow(2).mean()
eig_vals, _ = torch.linalg.eigh(feat.T @ feat)
diversity_loss = -eig_vals.clamp_min(1e-6).log().mean()
optimizer.zero_grad()
task_loss.backward()
diversity_loss.backward()
optimizer.step()
""",
        line=15,
        error="RuntimeError: Trying to backward through the graph a second time",
    ),
    # A step between the two passes (one optimizer per head): neither a summed backward nor a kept
    # graph is the repair; the shared features must be computed again for the second loss.
    Invalid(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)
encoder = nn.Linear(4, 8)
head_a = nn.Linear(8, 1)
head_b = nn.Linear(8, 1)
opt_a = torch.optim.SGD([*encoder.parameters(), *head_a.parameters()], lr=0.1)
opt_b = torch.optim.SGD(head_b.parameters(), lr=0.1)
x = torch.randn(6, 4)
h = torch.tanh(encoder(x))
loss_a = head_a(h).pow(2).mean()
loss_b = head_b(h).abs().mean()
opt_a.zero_grad()
loss_a.backward()
opt_a.step()
opt_b.zero_grad()
loss_b.backward()
opt_b.step()
""",
        line=18,
        error="RuntimeError: Trying to backward through the graph a second time",
    ),
    # A loss per head in a loop over one forward, one step after the loop.
    Invalid(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)
encoder = nn.Linear(4, 8)
heads = nn.Linear(8, 3)
opt = torch.optim.SGD([*encoder.parameters(), *heads.parameters()], lr=0.1)
h = torch.tanh(encoder(torch.randn(6, 4)))
opt.zero_grad()
for k in range(3):
    loss = heads(h)[:, k].pow(2).mean()
    loss.backward()
opt.step()
""",
        line=12,
        error="RuntimeError: Trying to backward through the graph a second time",
    ),
]


def check_shared(ctx: Context, seen: FreedGraphReused) -> None:
    """Two losses over one forward, the second backward after the first freed the shared part:
    reported at the second backward."""
    if seen.same:
        return  # the same loss again: GG101's
    run, first = seen.run, seen.first
    loss, other = ctx.text(run.target), ctx.text(first.target)
    fields: dict[str, Any] = {
        "loss": loss,
        "other": other,
        "first_line": first.call.lineno,
        "shared": seen.shared,
        "shared_line": seen.shared_line,
    }
    related: list[Related] = list(seen.related)
    fixes: list[FixRef] = []
    if seen.step is not None:
        # Neither a summed backward nor a kept graph gives the second loss what it means after the
        # step changed the weights: the shared part must be computed again.
        fields["step_line"] = seen.step.lineno
        if seen.recompute is not None:
            where = ctx.span(run.stmt) if run.stmt is not None else ctx.span(run.call)
            fix = ctx.fix("GG102", "recompute-shared", "insert-before", anchor=where, text=seen.recompute)
            fixes.append(fix)
        ctx.add("GG102", run.call, fields, related, fixes, seen.chain, variant="stepped")
        return
    if seen.summable and first.stmt is not None and run.stmt is not None:
        first_stmt = {"stmt": ctx.span(first.stmt).to_json(), "text": f"({other} + {loss}).backward()"}
        parts = [
            {"kind": "replace-stmt", "params": first_stmt},
            {"kind": "remove-stmt", "params": {"stmt": ctx.span(run.stmt).to_json()}},
        ]
        fixes.append(ctx.fix("GG102", "sum-losses", "multi", parts=parts))
    if seen.retain_ok:
        fixes.append(retain_fix(ctx, "GG102", first.call))
    variant = "loop" if loss == other and run.call is first.call else None
    ctx.add("GG102", run.call, fields, related, fixes, seen.chain, variant=variant)


CHECKS = {FreedGraphReused: check_shared}
