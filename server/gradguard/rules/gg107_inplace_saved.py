"""GG107: an in-place change to a tensor that a later backward needs.

## What it does

Finds an in-place operation (`y.mul_(2)`, `y += x`, `y[i] = v`) on a
tensor that an earlier operation saved for its backward (the output of
`sigmoid`, `tanh`, `relu`, `exp`; either input of `*` or `@`), when a backward
through that operation follows. Also finds `nn.ReLU(inplace=True)` placed right
after `nn.Sigmoid()` or `nn.Tanh()` in an `nn.Sequential`, which overwrites the
activation's saved output, and an in-place layer (`nn.ReLU(True)`) of a model
built from the program's own modules that changes what the layer before it
returned after something saved it (a style loss's Gram matrix). The squiggle is
on the in-place statement (or the in-place layer's constructor). Also finds an in-place change of one of the views
that `chunk`, `split` or `unbind` returned from a tensor that requires grad
(`mean, log_std = out.chunk(2, -1); log_std.clamp_(-20, 2)`), which autograd
refuses on the spot.

## Why is this bad

Every tensor carries a version counter that in-place operations bump. When
backward unpacks a saved tensor whose version changed, torch 2.13 refuses to
compute a gradient from the wrong values:

```text
RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation: [torch.FloatTensor [2, 3]], which is output 0 of Sigmoid, is at version 1; expected version 0 instead. Hint: enable anomaly detection to find the operation that failed to compute its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).
```

(The bracketed shape and the operation name vary.) The error appears at the
backward, far from the statement that caused it. For a view of a multi-view
op it appears at the in-place statement itself:
```text
RuntimeError: Output 1 of Split is a view and is being modified inplace. This view is the output of a function that returns multiple views. Such functions do not allow the output views to be modified inplace. You should replace the inplace operation by an out-of-place one.
```

## Example

```python
probs = torch.sigmoid(layer(x))
probs.mul_(2)  # GG107: sigmoid saved probs for its backward
probs.sum().backward()
```

## Fix

Use the out-of-place form, which leaves the saved tensor untouched:

```python
probs = torch.sigmoid(layer(x))
probs = probs.mul(2)
```

For `y[i] = v`, assign into a copy (`y = y.clone()` first); for an element of
a Python list (`feats[i] += up`), rebind it out of place
(`feats[i] = feats[i] + up`). For `nn.ReLU(inplace=True)` after
`Sigmoid`/`Tanh`, drop `inplace=True` (the ReLU is a no-op on a sigmoid's
output anyway). The trade-off is one extra tensor
allocation per operation. `retain_graph` does not help: the saved values were
overwritten, not freed.

## When it does not fire

- The tensor was produced by an operation that saves nothing
  (`y = x + 1; y.mul_(2)` is fine), or it was only multiplied by a Python
  number (`x * 2` saves the scalar, not `x`).
- The ResNet pattern `out = bn(conv(x)); out += identity`: batch norm saves
  its input, not its output.
- `nn.ReLU(inplace=True)` after a `Linear` or `Conv` layer.
- The in-place change comes after the last backward through the tensor.
- A view of `chunk`/`split`/`unbind` changed under `torch.no_grad()`, or made
  from a tensor that does not require grad.
"""  # noqa: E501 (torch's error messages are quoted verbatim)

from __future__ import annotations

import ast

from ..findings import Related
from ..observations import Context, MultiviewInplace, SavedTensorChanged, SequentialHazard
from .base import SAFE, Invalid, Rule, Valid

RULE = Rule(
    code="GG107",
    name="inplace-on-saved-tensor",
    summary="An in-place change to a tensor that a later backward needs.",
    message=(
        "`{op}` changes `{name}` in place, but `{saved_by}` on line {saved_line} saved it for the "
        "backward on line {backward_line}, so that backward raises; use the out-of-place operation"
    ),
    fixes={
        "out-of-place": (
            "Use the out-of-place operation",
            "Allocates one more tensor for the result; the saved tensor keeps the values backward needs.",
        ),
        "drop-inplace": (
            "Drop inplace=True",
            "The activation allocates its own output tensor: a little more memory.",
        ),
    },
    safety={
        "out-of-place": (
            SAFE,
            "The same values are computed into a new tensor, so the tensor backward saved keeps "
            "its values: only memory changes.",
        ),
        "drop-inplace": (
            SAFE,
            "The activation computes the same values into a new tensor: only memory changes.",
        ),
    },
    variants={
        "multiview": (
            "`{op}` changes `{name}` in place, but `{name}` is one of several views that `{split}` "
            "returned, which autograd does not let you change in place, so this line raises; use the "
            "out-of-place operation"
        ),
        # The saving statement binds the very name changed (`out = x.scatter_reduce(...)`, then
        # `out += b`): "but `out` saved it" would name the tensor, not the operation.
        "made-it": (
            "`{op}` changes `{name}` in place, but the operation that made `{name}` on line "
            "{saved_line} saved it for the backward on line {backward_line}, so that backward raises; "
            "use the out-of-place operation"
        ),
        # An in-place layer of a Sequential of the program's modules: its input has no name.
        "layer": (
            "`{op}` changes its input in place (the output of the layer before it in the model), "
            "but `{saved_by}` on line {saved_line} saved that tensor for the backward on line "
            "{backward_line}, so that backward raises; make this layer out of place"
        ),
        "sequential": (
            "`{layer}(inplace=True)` right after `{act}` overwrites the output that `{act}` saved for "
            "its backward, so the backward on line {backward_line} raises; drop `inplace=True`"
        ),
    },
)

VALID: list[Valid] = [
    # The views of chunk() changed out of place, or in place under no_grad.
    Valid(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)
net = nn.Linear(5, 4)
mean, log_std = net(torch.randn(3, 5)).chunk(2, dim=-1)
log_std = log_std.clamp(-20, 2)
with torch.no_grad():
    target_mean, target_log_std = net(torch.randn(3, 5)).chunk(2, dim=-1)
    target_log_std.clamp_(-20, 2)
(mean + log_std.exp() - target_mean - target_log_std).pow(2).mean().backward()
"""
    ),
    # In-place after ops that save nothing.
    Valid(
        """\
import torch

x = torch.randn(4, requires_grad=True)
y = x + 1
y.mul_(2)
y[0] = 0.0
y.sum().backward()
"""
    ),
    # A Python-scalar multiply saves the scalar, not its tensor input.
    Valid(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)
layer = nn.Linear(4, 3)
h = layer(torch.randn(2, 4))
scaled = h * 0.5
h.add_(1.0)
scaled.sum().backward()
"""
    ),
    # ResNet-style residual add after batch norm.
    Valid(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)
fc = nn.Linear(4, 4)
bn = nn.BatchNorm1d(4)
x = torch.randn(3, 4)
out = bn(fc(x))
out += x
out = torch.relu(out)
out.sum().backward()
"""
    ),
    # ReLU(inplace=True) after Linear is fine.
    Valid(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(
    nn.Linear(4, 8),
    nn.ReLU(inplace=True),
    nn.Linear(8, 1),
)
model(torch.randn(2, 4)).sum().backward()
"""
    ),
]

INVALID: list[Invalid] = [
    # A view that chunk() returned, changed in place: autograd refuses on the spot.
    Invalid(
        """\
import torch
import torch.nn as nn


class GaussianPolicy(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Linear(5, 4)

    def forward(self, states):
        mean, log_std = self.net(states).chunk(2, dim=-1)
        log_std.clamp_(-20, 2)
        return mean + torch.randn_like(mean) * log_std.exp()


torch.manual_seed(0)
policy = GaussianPolicy()
policy(torch.randn(3, 5)).pow(2).mean().backward()
""",
        line=12,
        error="RuntimeError: Output 1 of Split is a view and is being modified inplace",
    ),
    Invalid(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)
layer = nn.Linear(4, 3)
x = torch.randn(2, 4)
probs = torch.sigmoid(layer(x))
probs.mul_(2)
loss = probs.sum()
loss.backward()
""",
        line=8,
        error="RuntimeError: one of the variables needed for gradient computation has been modified "
        "by an inplace operation",
    ),
    Invalid(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)
fc = nn.Linear(4, 4)
opt = torch.optim.SGD(fc.parameters(), lr=0.1)
x = torch.randn(3, 4)
for step in range(2):
    h = torch.relu(fc(x))
    h += x
    loss = h.pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
""",
        line=10,
        error="RuntimeError: one of the variables needed for gradient computation has been modified "
        "by an inplace operation",
    ),
    # Variant "sequential".
    Invalid(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(
    nn.Linear(4, 8),
    nn.Sigmoid(),
    nn.ReLU(inplace=True),
    nn.Linear(8, 1),
)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loss = model(torch.randn(2, 4)).pow(2).mean()
opt.zero_grad()
loss.backward()
opt.step()
""",
        line=8,
        error="RuntimeError: one of the variables needed for gradient computation has been modified "
        "by an inplace operation",
    ),
    # A StyleGAN2-style block: a custom autograd.Function keeps its output for backward, inside a
    # layer that extends nn.Sequential, and the residual is added onto that output in place.
    Invalid(
        """\
import torch
import torch.nn as nn
import torch.nn.functional as F


class ScaledLeakyReLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input, bias):
        out = F.leaky_relu(input + bias, 0.2) * 2**0.5
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        (out,) = ctx.saved_tensors
        grad = grad_output * torch.where(out >= 0, 2**0.5, 0.2 * 2**0.5)
        return grad, grad.sum(0)


class Activation(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.bias = nn.Parameter(torch.zeros(channels))

    def forward(self, x):
        return ScaledLeakyReLU.apply(x, self.bias)


class LinearLayer(nn.Sequential):
    def __init__(self, n_in, n_out):
        super().__init__(nn.Linear(n_in, n_out, bias=False), Activation(n_out))


torch.manual_seed(0)
layer, skip = LinearLayer(4, 4), nn.Linear(4, 4)
x = torch.randn(3, 4)
out = layer(x)
out += skip(x)
out.pow(2).mean().backward()
""",
        line=38,
        error="RuntimeError: one of the variables needed for gradient computation has been modified "
        "by an inplace operation",
    ),
    # Max aggregation of messages (a hand-written GNN layer): scatter_reduce keeps its result for
    # backward, and the bias is then added to that result in place.
    Invalid(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)
lin = nn.Linear(4, 8)
bias = nn.Parameter(torch.zeros(8))
x = torch.randn(5, 4)
src = torch.tensor([0, 1, 2, 3, 4, 0])
dst = torch.tensor([1, 2, 3, 4, 0, 2])
msg = lin(x)[src]
index = dst.view(-1, 1).expand_as(msg)
out = msg.new_zeros(5, 8).scatter_reduce(0, index, msg, reduce="amax", include_self=False)
out += bias
out.relu().sum().backward()
""",
        line=13,
        error="RuntimeError: one of the variables needed for gradient computation has been modified",
    ),
    # A style-transfer net rebuilt layer by layer, a style loss after the convolution: the
    # in-place ReLU then changes the convolution's output, which the loss's Gram matrix saved.
    Invalid(
        """\
import torch
import torch.nn as nn


class StyleLoss(nn.Module):
    def forward(self, input):
        features = input.view(8, 256)
        self.loss = torch.mm(features, features.t()).sum()
        return input


cnn = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(inplace=True))
style = StyleLoss()
net = nn.Sequential()
for layer in list(cnn):
    net.add_module(str(len(net)), layer)
    if isinstance(layer, nn.Conv2d):
        net.add_module(str(len(net)), style)
img = nn.Parameter(torch.rand(1, 3, 16, 16))
net(img)
style.loss.backward()
""",
        line=12,
        error="RuntimeError: one of the variables needed for gradient computation has been modified",
    ),
]


def check_hazard(ctx: Context, seen: SequentialHazard) -> None:
    """Squiggled on the in-place layer's constructor: drop its ``inplace=True``."""
    layer = seen.layer
    func = layer.func if isinstance(layer, ast.Call) else None
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else "ReLU"
    fixes = []
    if isinstance(layer, ast.Call):
        fixes.append(ctx.fix("GG107", "drop-inplace", "drop-keyword", call=ctx.span(layer), name="inplace"))
    ctx.add(
        "GG107",
        layer,
        {
            "act": seen.saved_by,
            "layer": name,
            "name": seen.saved_by,
            "op": ctx.text(layer),
            "saved_by": seen.saved_by,
            "saved_line": getattr(layer, "lineno", 0),
            "backward_line": seen.run.call.lineno,
        },
        [
            Related(ctx.span(seen.model_call), f"the model runs here: {ctx.text(seen.model_call)}", "built"),
            ctx.backward_related(
                seen.run, "raises here: it needs the activation's output, now overwritten", "reused"
            ),
        ],
        fixes,
        variant="sequential",
    )


def check_multiview(ctx: Context, seen: MultiviewInplace) -> None:
    """An in-place change of a view that chunk/split/unbind returned: raises right there."""
    fixes = [ctx.fix("GG107", "out-of-place", "rewrite-inplace", stmt=ctx.span(seen.stmt))]
    related = [Related(ctx.span(seen.split), f"the views are made here: {ctx.text(seen.split)}", "built")]
    fields = {"name": ctx.text(seen.target), "op": ctx.text(seen.op), "split": ctx.text(seen.split)}
    ctx.add("GG107", seen.stmt, fields, related, fixes, variant="multiview")


def report_changed_saved(ctx: Context, seen: SavedTensorChanged, code: str) -> None:
    """GG107 and GG203 alike: squiggled on the in-place change, fixed out of place (or by dropping
    an `inplace=True`)."""
    fixes = []
    if seen.stmt is not None:
        # An element of a list (`laterals[i] += x`) is rebound out of place; part of a tensor is
        # written into a copy.
        extra = {"element": True} if seen.element else {}
        fixes.append(ctx.fix(code, "out-of-place", "rewrite-inplace", stmt=ctx.span(seen.stmt), **extra))
    op = seen.op
    if isinstance(op, ast.Call) and any(k.arg == "inplace" for k in op.keywords):
        fixes = [ctx.fix("GG107", "drop-inplace", "drop-keyword", call=ctx.span(op), name="inplace")]
    fields = {
        "name": ctx.text(seen.target).removesuffix(".data"),
        "op": ctx.text(op),
        "saved_by": ctx.text(seen.saved_by),
        "saved_line": getattr(seen.saved_by, "lineno", 0),
        "backward_line": seen.run.call.lineno,
    }
    # GG203's change goes through `.data`, so torch does not notice: no error, a wrong gradient.
    outcome = (
        "computes a wrong gradient here from the changed value"
        if code == "GG203"
        else "raises here: it needs the value from before the in-place change"
    )
    related = [
        Related(ctx.span(seen.saved_by), f"saved for backward here: {ctx.text(seen.saved_by)}", "built"),
        ctx.backward_related(seen.run, outcome, "reused"),
    ]
    variant = "made-it" if fields["saved_by"] == fields["name"] else None
    if seen.target is op and isinstance(op, ast.Call):
        variant = "layer"  # an in-place layer of a Sequential, on what the layer before returned
    ctx.add(code, seen.stmt if seen.stmt is not None else op, fields, related, fixes, variant=variant)


def check_changed(ctx: Context, seen: SavedTensorChanged) -> None:
    if not seen.through_data:
        report_changed_saved(ctx, seen, "GG107")


CHECKS = {
    SequentialHazard: check_hazard,
    MultiviewInplace: check_multiview,
    SavedTensorChanged: check_changed,
}
