"""GG106: backward on a value that has no graph.

## What it does

Finds `backward()` called on a value whose graph was cut before it was
computed: built from `.detach()`, from `.item()` (which yields a Python
number), entirely under `torch.no_grad()` or `torch.inference_mode()` (where
`enable_grad()` turns grad mode on but records nothing), or by a reentrant
`checkpoint()` (`use_reentrant=True`, torch's default) whose inputs do not
require grad: its output then requires none, whatever parameters the
checkpointed blocks use (a frozen embedding in front of them), or a model
whose parameters were all frozen, also by name (`for name, p in
model.named_parameters(): p.requires_grad = "lora_" in name` on a model with no
LoRA layer: the names are torch's, for the layers the analysis knows). The
squiggle is on the backward call; the message names what cut the graph.

## Why is this bad

There is nothing to differentiate. For a detached tensor torch 2.13 raises:

```text
RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
```

and after `.item()` the "loss" is a plain `float`:

```text
AttributeError: 'float' object has no attribute 'backward'
```

A common wrong "fix" is to re-wrap the value,
`torch.tensor(loss, requires_grad=True)`: the error goes away, but the new
tensor is a fresh leaf and the model's gradients stay `None`, so training
silently does nothing.

## Example

```python
pred = model(x).detach()
loss = F.mse_loss(pred, y)
loss.backward()  # GG106: the graph was cut on the line above
```

## Fix

Remove the `.detach()` or `.item()` that cut the graph:

```python
pred = model(x)
loss = F.mse_loss(pred, y)
loss.backward()
```

If it was there for logging or to save memory, keep a separate copy for that
purpose (`logged = loss.item()` after the backward) rather than cutting the
loss itself. `retain_graph` has nothing to do with this error.

## When it does not fire

- Only a *target* is detached (a teacher's output, a target network's value):
  the loss still depends on the trained model.
- `.item()` is used only for logging, and backward runs on the tensor.
- Backward is called *inside* a `no_grad` block on a loss built outside it:
  torch allows that.
- `.clone()`, `.to(...)`, `torch.as_tensor` keep the graph.
- A module has a forward hook that may change what it returns
  (`enable_input_require_grads()` makes an embedding's output require grad):
  its output is not judged. A hook that only keeps or reads the output
  (Grad-CAM's activations) changes nothing.
- `requires_grad = True` is set on parameters the analysis cannot name (layers
  found by name): no module is then taken as frozen.
- A freeze by name leaves a layer, or part of one, trainable, or the model holds
  a part the analysis does not know (whose parameters may still train).
"""

from __future__ import annotations

import ast

from ..findings import FixRef, Related
from ..observations import CHECKPOINT_CAUSE, Context, NoGraphBackward
from .base import UNSAFE, Invalid, Rule, Valid

RULE = Rule(
    code="GG106",
    name="backward-without-graph",
    summary="Backward on a value whose graph was cut by .detach(), .item() or no_grad.",
    message=(
        "`{loss}` has no graph to backpropagate, so this backward raises: {cause} cut it off from "
        "the model; remove that cut"
    ),
    fixes={
        "remove-detach": (
            "Remove the .detach()/.item() that cut the graph",
            "The loss keeps its graph and trains the model; log a separate .item() copy if you need one.",
        ),
        "non-reentrant": (
            "Pass use_reentrant=False to checkpoint()",
            "The checkpointed code stays in the graph through its parameters, whatever its inputs; "
            "it is still recomputed in the backward, as before.",
        ),
    },
    safety={
        "remove-detach": (
            UNSAFE,
            "The loss gets its graph back, so parameters that received no gradient start "
            "training: the point of the fix, but it changes what trains.",
        ),
        "non-reentrant": (
            UNSAFE,
            "The checkpointed blocks' parameters start receiving gradients: the point of the fix, "
            "but it changes what trains.",
        ),
    },
    variants={
        "checkpoint": (
            "`{loss}` has no graph to backpropagate, so this backward raises: {cause} returns a "
            "tensor that does not require grad, whatever parameters the checkpointed code uses; pass "
            "`use_reentrant=False` to `checkpoint()`, or make an input require grad"
        ),
        "float": (
            "`{loss}` is a Python number, not a tensor: {cause} turned it into a float, which has no "
            "`.backward()`; backpropagate the tensor and take `.item()` only for logging"
        ),
    },
)

VALID: list[Valid] = [
    # .item() only for logging.
    Valid(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
criterion = nn.MSELoss()
x = torch.randn(8, 3)
y = torch.randn(8, 1)
history = []
for step in range(3):
    opt.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    opt.step()
    history.append(loss.item())
"""
    ),
    # Distillation: the teacher's output is detached, the student's is not.
    Valid(
        """\
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
teacher = nn.Linear(6, 4)
student = nn.Linear(6, 4)
opt = torch.optim.SGD(student.parameters(), lr=0.1)
x = torch.randn(5, 6)
soft_targets = F.softmax(teacher(x), dim=1).detach()
loss = F.kl_div(F.log_softmax(student(x), dim=1), soft_targets, reduction="batchmean")
opt.zero_grad()
loss.backward()
opt.step()
"""
    ),
    # Backward inside no_grad on a loss recorded outside it.
    Valid(
        """\
import torch

w = torch.randn(3, requires_grad=True)
loss = (w * w).sum()
with torch.no_grad():
    loss.backward()
"""
    ),
    # .clone() and .to() keep the graph.
    Valid(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(3, 2)
out = model(torch.randn(4, 3)).clone().to(torch.float64)
loss = out.pow(2).mean()
loss.backward()
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
model = nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(8, 3)
y = torch.randn(8, 1)
pred = model(x).detach()
loss = F.mse_loss(pred, y)
opt.zero_grad()
loss.backward()
opt.step()
""",
        line=13,
        error="RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn",
    ),
    # Variant "float": .item() made the loss a Python number.
    Invalid(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 8), nn.ReLU(), nn.Linear(8, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
criterion = nn.MSELoss()
x = torch.randn(8, 3)
y = torch.randn(8, 1)
for step in range(3):
    opt.zero_grad()
    loss = criterion(model(x), y).item()
    loss.backward()
    opt.step()
""",
        line=13,
        error="AttributeError: 'float' object has no attribute 'backward'",
    ),
    Invalid(
        """\
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
encoder = nn.Linear(6, 4)
classifier = nn.Linear(4, 3)
opt = torch.optim.Adam([*encoder.parameters(), *classifier.parameters()], lr=1e-3)
x = torch.randn(5, 6)
labels = torch.tensor([0, 2, 1, 1, 0])
logits = classifier(torch.relu(encoder(x)))
loss = (F.cross_entropy(logits, labels) + 1e-4 * logits.pow(2).mean()).detach()
opt.zero_grad()
loss.backward()
opt.step()
""",
        line=14,
        error="RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn",
    ),
    # Checkpointed blocks fed by a frozen embedding (LoRA fine-tuning without
    # `enable_input_require_grads()`): the reentrant checkpoint's output requires no grad.
    Invalid(
        """\
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)
embedding = nn.Embedding(20, 8)
embedding.weight.requires_grad_(False)
block = nn.Sequential(nn.Linear(8, 8), nn.Tanh())
opt = torch.optim.SGD(block.parameters(), lr=0.1)
ids = torch.randint(0, 20, (4, 5))
h = checkpoint(block, embedding(ids), use_reentrant=True)
loss = h.pow(2).mean()
opt.zero_grad()
loss.backward()
opt.step()
""",
        line=14,
        error="RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn",
    ),
]


def check_no_graph(ctx: Context, seen: NoGraphBackward) -> None:
    """A backward on a value with no grad_fn, reported at the backward with what cut the graph
    (nothing when the cause is not known for certain). A penalty cut by ``autograd.grad``
    without ``create_graph`` is GG202's, at the call to change."""
    if seen.penalty is not None:
        return
    run = seen.run
    cause = run.val.cause
    if cause is None:
        return  # no definite reason: stay silent
    node = cause[1]
    fixes: list[FixRef] = []
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("detach", "item")
        and not node.args
    ):
        fixes.append(ctx.fix("GG106", "remove-detach", "unwrap", expr=ctx.span(node)))
    if cause[0] == CHECKPOINT_CAUSE and isinstance(node, ast.Call):
        keyword = {"call": ctx.span(node), "name": "use_reentrant", "value": "False"}
        fixes.append(ctx.fix("GG106", "non-reentrant", "set-keyword", **keyword))
    ctx.add(
        "GG106",
        run.call,
        {"loss": ctx.text(run.target), "cause": f"{cause[0]} on line {getattr(node, 'lineno', '?')}"},
        [Related(ctx.span(node), f"graph cut here: {cause[0]}", "built")],
        fixes,
        variant="float" if seen.number else "checkpoint" if cause[0] == CHECKPOINT_CAUSE else None,
    )


CHECKS = {NoGraphBackward: check_no_graph}
