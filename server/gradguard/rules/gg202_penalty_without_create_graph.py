"""## What it does
Finds a gradient computed with `torch.autograd.grad(...)` without
`create_graph=True` whose result is then folded into a loss that is
backpropagated: a gradient penalty (WGAN-GP, R1), input-gradient
regularisation, or any double-backprop objective.

## Why is this bad
Without `create_graph=True` the returned gradient is a constant: it has no
`grad_fn` and `requires_grad` is `False`. Adding a penalty built from it to the
loss changes the loss's value and nothing else; the penalty's gradient is
silently zero, so the regularisation you are paying to compute never acts. In
the first example `penalty.requires_grad` is `False` and the critic's weight
gradient is the same with or without the `10 * penalty` term. No warning,
no error. When the penalty is backpropagated on its own, the same mistake
raises `RuntimeError: element 0 of tensors does not require grad and does
not have a grad_fn`; the finding is then reported here, at the
`autograd.grad` call to change, rather than as GG106.

## Example
```python
grads, = torch.autograd.grad(critic(mixed).sum(), mixed)
penalty = ((grads.norm(dim=1) - 1) ** 2).mean()
loss = critic(fake).mean() - critic(real).mean() + 10 * penalty
loss.backward()   # penalty contributes nothing
```

## Fix
Ask autograd to record the gradient computation itself:

```python
grads, = torch.autograd.grad(critic(mixed).sum(), mixed, create_graph=True)
```

The trade-off is real: the backward pass is now part of the graph, so memory
and time for that step roughly double. That is the cost of a gradient penalty.

## When it does not fire
With `create_graph=True` (a flag counts as it is where the call runs:
`create_graph=self.training` after `model.eval()` is False; a literal
`create_graph=False` says the constant is meant), and when the gradient is
only inspected (logged, compared, clipped by hand under `no_grad`) and never
reaches a backward. Nor
when the gradient is a step added to the very tensor it is the gradient of
(`fast = w - lr * g`, first-order MAML: constant on purpose). A gradient with
respect to the weights counts only once it is reduced to a number and added to
the loss (`loss + 0.1 * grad_w.pow(2).sum()`); a gradient with respect to an
input counts wherever it goes (a PINN's residual `du_dt + k * u`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..observations import Context, NoGraphBackward, PenaltyBackward
from .base import UNSAFE, Invalid, Rule, Valid

if TYPE_CHECKING:
    from ..engine.state import BackwardRun
    from ..engine.values import Taint

RULE = Rule(
    code="GG202",
    name="penalty-without-create-graph",
    summary="A gradient penalty from `autograd.grad` without `create_graph=True` has no gradient.",
    message=(
        "`{name}` comes from `torch.autograd.grad` without `create_graph=True`, so it is a constant: "
        "the penalty it adds to `{loss}` trains nothing; pass `create_graph=True`"
    ),
    variants={
        "raises": (
            "`{name}` comes from `torch.autograd.grad` without `create_graph=True`, so it is a "
            "constant: `{loss}`, built from it alone, has no graph, and its backward raises; pass "
            "`create_graph=True`"
        ),
    },
    fixes={
        "create-graph": (
            "Pass `create_graph=True`",
            "The penalty now trains, at roughly twice the memory and time of that backward pass.",
        ),
    },
    safety={
        "create-graph": (
            UNSAFE,
            "The penalty starts training the model (the point of the fix), and the first backward"
            " keeps its graph: more memory and time.",
        ),
    },
)

VALID: list[Valid] = [
    Valid(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)
critic = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 1))
optimizer = torch.optim.Adam(critic.parameters(), lr=1e-3)
real = torch.randn(8, 2)
fake = torch.randn(8, 2)
alpha = torch.rand(8, 1)
mixed = (alpha * real + (1 - alpha) * fake).requires_grad_()
score = critic(mixed)
grads, = torch.autograd.grad(score.sum(), mixed, create_graph=True)
penalty = ((grads.norm(dim=1) - 1) ** 2).mean()
loss = critic(fake).mean() - critic(real).mean() + 10 * penalty
optimizer.zero_grad()
loss.backward()
optimizer.step()
"""
    ),
    # The gradient is only logged, never trained on.
    Valid(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(4, 1)
x = torch.randn(8, 4)
loss = model(x).pow(2).mean()
g_w, = torch.autograd.grad(loss, model.weight)
grad_norm = g_w.norm().item()
"""
    ),
    # A saliency map: gradient of the output w.r.t. the input, no training.
    Valid(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
x = torch.randn(2, 4, requires_grad=True)
logits = model(x)
saliency, = torch.autograd.grad(logits[:, 0].sum(), x)
saliency = saliency.abs()
"""
    ),
    # First-order MAML: the inner step uses the gradient as a constant on purpose; the query loss
    # trains `w` through `fast`, not through the gradient.
    Valid(
        """\
import torch
import torch.nn.functional as F

torch.manual_seed(0)
w = torch.randn(4, 3, requires_grad=True)
meta_opt = torch.optim.SGD([w], lr=0.1)
x_s, y_s = torch.randn(8, 4), torch.randint(0, 3, (8,))
x_q, y_q = torch.randn(8, 4), torch.randint(0, 3, (8,))
support = F.cross_entropy(x_s @ w, y_s)
g, = torch.autograd.grad(support, w)
fast = w - 0.4 * g
query = F.cross_entropy(x_q @ fast, y_q)
meta_opt.zero_grad()
query.backward()
meta_opt.step()
"""
    ),
]

INVALID: list[Invalid] = [
    # WGAN-GP critic step.
    Invalid(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)
critic = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 1))
optimizer = torch.optim.Adam(critic.parameters(), lr=1e-3)
real = torch.randn(8, 2)
fake = torch.randn(8, 2)
alpha = torch.rand(8, 1)
mixed = (alpha * real + (1 - alpha) * fake).requires_grad_()
score = critic(mixed)
grads, = torch.autograd.grad(score.sum(), mixed)
penalty = ((grads.norm(dim=1) - 1) ** 2).mean()
loss = critic(fake).mean() - critic(real).mean() + 10 * penalty
optimizer.zero_grad()
loss.backward()
optimizer.step()
""",
        line=12,
        effect="not penalty.requires_grad",
    ),
    # Input-gradient regularisation ("double backprop") on a classifier.
    Invalid(
        """\
import torch
import torch.nn as nn
import torch.nn.functional as F


class Classifier(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(4, 16)
        self.fc2 = nn.Linear(16, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(torch.tanh(self.fc1(x)))


torch.manual_seed(0)
model = Classifier()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
labels = torch.randint(0, 3, (8,))
for step in range(2):
    x = torch.randn(8, 4).requires_grad_()
    ce = F.cross_entropy(model(x), labels)
    grad_x, = torch.autograd.grad(ce, x, retain_graph=True)
    total = ce + 0.1 * grad_x.pow(2).sum()
    optimizer.zero_grad()
    total.backward()
    optimizer.step()
""",
        line=23,
        effect="not grad_x.requires_grad",
    ),
    # The penalty backpropagated on its own (a separate critic step): it raises.
    Invalid(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)
critic = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 1))
optimizer = torch.optim.Adam(critic.parameters(), lr=1e-3)
real = torch.randn(8, 2)
fake = torch.randn(8, 2)
alpha = torch.rand(8, 1)
mixed = (alpha * real + (1 - alpha) * fake).requires_grad_()
grads, = torch.autograd.grad(critic(mixed).sum(), mixed)
gradient_penalty = 10 * ((grads.norm(dim=1) - 1) ** 2).mean()
optimizer.zero_grad()
gradient_penalty.backward()
optimizer.step()
""",
        line=11,
        error="RuntimeError: element 0 of tensors does not require grad",
    ),
    # A gradient-norm penalty on the weights: reduced to a number and added to the loss, the
    # constant gradient changes the loss's value and not its gradient.
    Invalid(
        """\
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
model = nn.Linear(4, 3)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(8, 4)
y = torch.randint(0, 3, (8,))
loss = F.cross_entropy(model(x), y)
grad_w, = torch.autograd.grad(loss, model.weight, retain_graph=True)
objective = loss + 0.1 * grad_w.pow(2).sum()
optimizer.zero_grad()
objective.backward()
""",
        line=11,
        effect=(
            "torch.allclose(model.weight.grad, "
            "torch.autograd.grad(F.cross_entropy(model(x), y), model.weight)[0])"
        ),
    ),
]


def _report(ctx: Context, run: BackwardRun, penalty: Taint, raises: bool) -> None:
    node = penalty.node
    if not ctx.once(("GG202", id(node))):
        return
    fixes = [
        ctx.fix(
            "GG202", "create-graph", "set-keyword", call=ctx.span(node), name="create_graph", value="True"
        )
    ]
    note = (
        "raises here: nothing in it has a graph"
        if raises
        else "this backward gets no gradient from the penalty"
    )
    ctx.add(
        "GG202",
        node,
        {"name": ctx.name(node), "loss": ctx.text(run.target)},
        [ctx.backward_related(run, note, "reused")],
        fixes,
        variant="raises" if raises else None,
    )


def check_penalty(ctx: Context, seen: PenaltyBackward) -> None:
    _report(ctx, seen.run, seen.penalty, raises=False)


def check_no_graph(ctx: Context, seen: NoGraphBackward) -> None:
    """Backpropagated on its own, the constant penalty raises: reported here, at the call."""
    if seen.penalty is not None:
        _report(ctx, seen.run, seen.penalty, raises=True)


CHECKS = {PenaltyBackward: check_penalty, NoGraphBackward: check_no_graph}
