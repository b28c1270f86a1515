"""## What it does
Finds an in-place change made through `.data` (`y.data.clamp_(...)`,
`y.data.mul_(...)`, `y.data[...] = ...`) to a tensor that a pending backward
pass still needs, because an operation saved it (for example `sigmoid`,
`tanh` and `exp` save their output).

## Why is this bad
`.data` is a view that autograd does not track: writing through it does not
bump the version counter that normally catches in-place changes to saved
tensors. Backward then runs with the modified values, as if they were the
originals, and returns a wrong gradient without any error. In the first
example the weight gradient differs from the true gradient of the very loss
the code computes. The same change written without `.data`
(`y.clamp_(...)`) would at least raise:

```
RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation: [torch.FloatTensor [8, 4]], which is output 0 of Sigmoid, is at version 1; expected version 0 instead. Hint: enable anomaly detection to find the operation that failed to compute its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).
```

## Example
```python
gate = torch.sigmoid(layer(x))
gate.data.clamp_(0.2, 0.8)      # sigmoid's backward reads the clamped values
loss = (gate * x).sum()
loss.backward()                 # wrong gradient, no error
```

## Fix
Make the change part of the graph, out of place:

```python
gate = gate.clamp(0.2, 0.8)
```

It costs one extra tensor of memory, and the gradient now accounts for the
operation (a clamp passes zero gradient where it clips). If the change really
must be invisible to autograd, do it before the graph uses the tensor, or on a
`detach()`ed copy that the graph does not read.

## When it does not fire
On `.data` writes to parameters outside the forward-to-backward window (weight
initialisation, manual SGD updates after `backward()`, WGAN weight clipping
after `step()`), and on tensors that no operation saved.
"""  # noqa: E501 (torch's error messages are quoted verbatim)

from __future__ import annotations

from ..observations import Context, SavedTensorChanged
from .base import UNSAFE, Invalid, Rule, Valid
from .gg107_inplace_saved import report_changed_saved

RULE = Rule(
    code="GG203",
    name="data-mutation-of-saved-tensor",
    summary="An in-place change through `.data` to a tensor saved for backward silently corrupts gradients.",
    message=(
        "`{name}` is changed in place through `.data`, but `{saved_by}` on line {saved_line} saved it "
        "for backward: autograd does not see the change, so the backward silently computes a wrong "
        "gradient; change it out of place, or after the backward"
    ),
    variants={
        # The statement that saved it binds the very name changed (`out = x.scatter_reduce(...)`).
        "made-it": (
            "`{name}` is changed in place through `.data`, but the operation that made `{name}` on "
            "line {saved_line} saved it for backward: autograd does not see the change, so the "
            "backward silently computes a wrong gradient; change it out of place, or after the backward"
        ),
    },
    fixes={
        "out-of-place": (
            "Use the out-of-place operation on the tensor itself",
            "One extra tensor of memory; the gradient now includes the operation.",
        ),
    },
    safety={
        "out-of-place": (
            UNSAFE,
            "The change is now recorded by autograd, so gradients flow through it: the computed "
            "gradients change (they become right).",
        ),
    },
)

VALID: list[Valid] = [
    # Initialisation before any forward pass.
    Valid(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)
layer = nn.Linear(4, 4)
layer.weight.data.normal_(0.0, 0.02)
layer.bias.data.zero_()
x = torch.randn(8, 4)
loss = torch.sigmoid(layer(x)).sum()
loss.backward()
"""
    ),
    # WGAN weight clipping after the optimizer step.
    Valid(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)
critic = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 1))
optimizer = torch.optim.RMSprop(critic.parameters(), lr=5e-5)
for step in range(3):
    real = torch.randn(8, 2)
    fake = torch.randn(8, 2)
    loss = critic(fake).mean() - critic(real).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    for p in critic.parameters():
        p.data.clamp_(-0.01, 0.01)
"""
    ),
    # Manual SGD after backward: the graph is already consumed.
    Valid(
        """\
import torch

torch.manual_seed(0)
w = torch.randn(4, 1, requires_grad=True)
x = torch.randn(8, 4)
y = torch.randn(8, 1)
for step in range(3):
    loss = (torch.tanh(x @ w) - y).pow(2).mean()
    loss.backward()
    w.data.sub_(0.1 * w.grad)
    w.grad.zero_()
"""
    ),
]

INVALID: list[Invalid] = [
    Invalid(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)
layer = nn.Linear(4, 4)
x = torch.randn(8, 4)
gate = torch.sigmoid(layer(x))
gate.data.clamp_(0.2, 0.8)
loss = (gate * x).sum()
loss.backward()
""",
        line=8,
        effect=(
            "not torch.allclose(layer.weight.grad, torch.autograd.grad("
            "(torch.sigmoid(layer(x)).clamp(0.2, 0.8) * x).sum(), layer.weight)[0])"
        ),
    ),
    # Rescaling activations through `.data` before the head.
    Invalid(
        """\
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
encoder = nn.Linear(4, 8)
head = nn.Linear(8, 1)
x = torch.randn(8, 4)
y = torch.randn(8, 1)
h = torch.tanh(encoder(x))
h.data.mul_(0.5)
loss = F.mse_loss(head(h), y)
loss.backward()
""",
        line=11,
        effect=(
            "not torch.allclose(encoder.weight.grad, torch.autograd.grad("
            "F.mse_loss(head(torch.tanh(encoder(x)).mul(0.5)), y), encoder.weight)[0])"
        ),
    ),
    # Halving a max-aggregation's output through `.data`: its backward finds the maxima by
    # comparing with the output it saved, and now finds none.
    Invalid(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)
lin = nn.Linear(4, 8)
x = torch.randn(5, 4)
src = torch.tensor([0, 1, 2, 3, 4, 0])
dst = torch.tensor([1, 2, 3, 4, 0, 2])
msg = lin(x)[src]
index = dst.view(-1, 1).expand_as(msg)
out = msg.new_zeros(5, 8).scatter_reduce(0, index, msg, reduce="amax", include_self=False)
out.data.mul_(0.5)
loss = out.sum()
loss.backward()
""",
        line=12,
        effect=(
            "not torch.allclose(lin.weight.grad, torch.autograd.grad((lin(x)[src].new_zeros(5, 8)"
            ".scatter_reduce(0, index, lin(x)[src], reduce='amax', include_self=False) * 0.5).sum(), "
            "lin.weight)[0])"
        ),
    ),
]


def check_changed(ctx: Context, seen: SavedTensorChanged) -> None:
    """A change through `.data` of a tensor saved for backward (the GG107 check, through `.data`)."""
    if seen.through_data:
        report_changed_saved(ctx, seen, "GG203")


CHECKS = {SavedTensorChanged: check_changed}
