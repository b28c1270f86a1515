"""## What it does
Finds a training loop that calls `loss.backward()` and `optimizer.step()` but
never clears the gradients (`optimizer.zero_grad()` or `model.zero_grad()`),
and a loop that clears them between `backward()` and `step()`. It also follows
`.grad` through calls: a `step()` (in a method or helper too) that applies
gradients an earlier step already applied, because nothing cleared them between
that step and the next `backward()`, is reported too. The squiggle is on the
`backward()` that adds onto the old gradients (where `zero_grad()` belongs),
with the step as a related location; a misplaced `zero_grad()` is squiggled
itself. A `zero_grad()` written once before the loop (`optimizer.zero_grad()`
then `for ...: backward(); step()`) is named in the message, and the fix moves
it into the loop. The finding made by following `.grad` has no automatic fix:
where to clear depends on whether gradients are meant to accumulate over
several backward passes before a step.

Gradient accumulation done the other way round is found too: a `zero_grad()`
(of the optimizer or of the model it steps) that runs in every iteration of a
loop whose step runs only in some (`if (i + 1) % k == 0: optimizer.step()`, `k`
known or not), before the backward or after the step's `if`, or in a helper
called once per micro-batch before a step after the loop. In the iterations
without a step it throws away gradients that no step has applied; it is
squiggled, and the fix moves it after the step. It is reported only when the
backward reached this optimizer's parameters alone (in a GAN, G's backward
filling D's `.grad` is cleared on purpose), the clear is not under a condition,
and the step's condition counts iterations (a step skipped for a bad batch may
well have its gradients cleared).

With mixed precision, `scaler.step(optimizer)` of a `torch.amp.GradScaler` is
that optimizer's step (it only skips steps whose gradients are not finite), and
`scaler.scale(loss).backward()` fills the same `.grad`.

The same holds for a tensor the code makes itself and reads `.grad` of in a loop
(an adversarial perturbation, an input being optimised by hand): a `backward()`
that adds onto what an earlier iteration left and read there, with nothing
clearing it (`x.grad = None`, `x.grad.zero_()`), is reported on that backward.

## Why is this bad
`backward()` adds into `.grad`; it never overwrites. Nothing raises, but:

- **Missing:** every step applies the sum of all gradients so far, an
  unrequested momentum whose step size grows with the iteration count. In the
  first example below, after 5 steps the stored gradient is 9.7 times the
  current batch's own gradient (1.06 times with `zero_grad()`, the difference
  being the last step's weight change). The loss may even fall faster at first,
  which is why this survives until a run diverges.
- **Misplaced** (`backward(); zero_grad(); step()`): `zero_grad()` throws the
  fresh gradient away just before the step uses it (since torch 2.0 it sets
  `.grad` to `None`, and optimizers skip such parameters). The weights never
  change: the loss in the second example is identical at every epoch.

## Example
```python
for epoch in range(5):
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()        # gradients of all previous epochs included
```

## Fix
Clear the gradients once per step, before `backward()`:

```python
for epoch in range(5):
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
```

Placing it anywhere outside the backward-to-step window is equivalent. If you
meant to accumulate gradients over several batches, make that explicit: clear
them under the same condition that steps (`if (i + 1) % k == 0:`), which
gradguard recognises.

For a tensor's own `.grad`, clear it before each `backward()` (`delta.grad = None`)
or after reading it (`delta.grad.zero_()`).

## When it does not fire
When any `zero_grad()` of the optimizer or of the model runs in the loop outside
the backward-to-step window, when gradients are cleared by hand
(`p.grad = None`), and when the loop it finds is not clearly a training loop
(no step, or backward only through an unknown value).
"""

from __future__ import annotations

import ast

from ..findings import Related
from ..observations import (
    Context,
    DiscardedGradients,
    GradientsNeverCleared,
    GradientsReapplied,
    InputGradRead,
    ZeroGradBetween,
)
from .base import UNSAFE, Invalid, Rule, Valid

RULE = Rule(
    code="GG201",
    name="zero-grad-missing-or-misplaced",
    summary="Training loop without `zero_grad()`, or with it between `backward()` and `step()`.",
    message=(
        "this backward adds to the gradients of all earlier iterations, because the loop never calls "
        "`zero_grad()`, so the step on line {step_line} applies their running sum; call "
        "`{optimizer}.zero_grad()` before the backward"
    ),
    fixes={
        "zero-grad-before-backward": (
            "Call `zero_grad()` before `backward()`",
            "Each step uses only its own batch's gradient; deliberate accumulation needs a condition.",
        ),
        "move-zero-grad": (
            "Move `zero_grad()` before `backward()`",
            "None; between backward and step it discards the gradient the step needs.",
        ),
        "clear-input-grad": (
            "Clear the tensor's `.grad` before `backward()`",
            "Each read sees only that iteration's gradient; the tensor's update rule is unchanged.",
        ),
        "zero-grad-into-loop": (
            "Move `zero_grad()` into the loop, before `backward()`",
            "Each step uses only its own iteration's gradients; deliberate accumulation needs a condition.",
        ),
        "zero-after-step": (
            "Move `zero_grad()` after the step",
            "Gradients now add up over the iterations between steps, as the step condition intends; "
            "scale the loss by the number of accumulated batches if you want their mean.",
        ),
    },
    safety={
        "zero-grad-before-backward": (
            UNSAFE,
            "Gradients no longer add up across iterations: what the step applies changes (the "
            "bug, unless the accumulation was meant).",
        ),
        "move-zero-grad": (
            UNSAFE,
            "The step now applies this iteration's gradients instead of none: the training "
            "changes (the point of the fix).",
        ),
        "clear-input-grad": (
            UNSAFE,
            "The read sees this iteration's gradient instead of a running sum: what the code "
            "computes from it changes.",
        ),
        "zero-grad-into-loop": (
            UNSAFE,
            "Gradients no longer add up across iterations: what the step applies changes (the "
            "bug, unless the accumulation was meant).",
        ),
        "zero-after-step": (
            UNSAFE,
            "The step now applies the gradients instead of nothing: the training changes (the "
            "point of the fix).",
        ),
    },
    variants={
        # Found by following `.grad` through calls (the step and backward may sit in methods).
        "flow": (
            "this backward adds to gradients that an earlier `{optimizer}.step()` already applied, "
            "because nothing calls `zero_grad()` in between, so the step on line {step_line} applies "
            "those old gradients again; call `{optimizer}.zero_grad()` before the backward"
        ),
        "input": (
            "this backward adds to `{name}.grad`, which still holds what earlier iterations added, "
            "because nothing clears it in this loop, so the read on line {read_line} sees their running "
            "sum; set `{name}.grad = None` before the backward"
        ),
        # The loop's optimizer is cleared once, by a `zero_grad()` written before the loop.
        "before-loop": (
            "this backward adds to the gradients of all earlier iterations, because "
            "`{optimizer}.zero_grad()` on line {clear_line} runs once, before the loop, so the step on "
            "line {step_line} applies their running sum; move it into the loop, before the backward"
        ),
        "misplaced": (
            "`{optimizer}.zero_grad()` runs after the backward on line {backward_line} and before the "
            "step on line {step_line}, so it throws away the gradients the step should apply; move it "
            "before the backward"
        ),
        "discards": (
            "`{optimizer}.zero_grad()` runs in every iteration but the step does not, so it throws "
            "away what the backward on line {backward_line} added in the iterations without a step; "
            "move it after the step"
        ),
    },
)

VALID: list[Valid] = [
    Valid(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
criterion = nn.MSELoss()
x = torch.randn(32, 4)
y = torch.randn(32, 1)
for epoch in range(5):
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
"""
    ),
    # Cleared after the step, through the model: equivalent.
    Valid(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
x = torch.randn(32, 4)
y = torch.randn(32, 1)
for epoch in range(5):
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    optimizer.step()
    model.zero_grad()
"""
    ),
    # Deliberate accumulation over two micro-batches.
    Valid(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
accum_steps = 2
for i in range(6):
    x = torch.randn(8, 4)
    y = torch.randn(8, 1)
    loss = nn.functional.mse_loss(model(x), y) / accum_steps
    loss.backward()
    if (i + 1) % accum_steps == 0:
        optimizer.step()
        optimizer.zero_grad()
"""
    ),
]

INVALID: list[Invalid] = [
    # An input perturbation's `.grad` read every attack step and never cleared: each step
    # follows the running sum of all earlier steps' gradients.
    Invalid(
        """\
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 3))
x = torch.randn(4, 6)
y = torch.randint(0, 3, (4,))
delta = torch.zeros_like(x, requires_grad=True)
deltas, used = [], []
for step in range(3):
    deltas.append(delta.detach().clone())
    loss = F.cross_entropy(model(x + delta), y)
    loss.backward()
    used.append(delta.grad.clone())
    delta.data = delta.data + 0.01 * delta.grad.sign()


def fresh_grad(d):
    d = d.clone().requires_grad_(True)
    return torch.autograd.grad(F.cross_entropy(model(x + d), y), d)[0]
""",
        line=14,
        effect="not torch.allclose(used[1], fresh_grad(deltas[1]))",
    ),
    # Missing: the stored gradient is the running sum, several times the
    # current batch's own gradient.
    Invalid(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
criterion = nn.MSELoss()
x = torch.randn(32, 4)
y = torch.randn(32, 1)
for epoch in range(5):
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
""",
        line=12,
        effect=(
            "model.weight.grad.norm() > 2 * torch.autograd.grad("
            "criterion(model(x), y), model.weight)[0].norm()"
        ),
    ),
    # Cleared once, before the loop whose steps each accumulate two micro-batches: from the second
    # step on, each applies the sum of all earlier steps' gradients. The clear moves into the loop,
    # in front of the micro-batch loop (inside it only the last micro-batch would count).
    Invalid(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
batches = [torch.randn(8, 4) for _ in range(2)]
optimizer.zero_grad()
for step in range(4):
    for x in batches:
        loss = model(x).pow(2).mean() / len(batches)
        loss.backward()
    optimizer.step()


def fresh() -> torch.Tensor:
    total = sum(model(x).pow(2).mean() / len(batches) for x in batches)
    return torch.autograd.grad(total, model.weight)[0]
""",
        line=12,
        effect="model.weight.grad.norm() > 2 * fresh().norm()",
    ),
    # Misplaced: the weights never move, so the logged loss never changes.
    Invalid(
        """\
import torch
import torch.nn as nn


class MLP(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)


torch.manual_seed(0)
model = MLP()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
x = torch.randn(32, 4)
y = torch.randn(32, 1)
losses = []
for epoch in range(5):
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    optimizer.zero_grad()
    optimizer.step()
    losses.append(loss.item())
""",
        line=23,
        effect="losses[0] == losses[-1]",
    ),
    # Missing, with a classifier.
    Invalid(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 3))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
criterion = nn.CrossEntropyLoss()
x = torch.randn(32, 4)
labels = torch.randint(0, 3, (32,))
for epoch in range(5):
    logits = model(x)
    loss = criterion(logits, labels)
    loss.backward()
    optimizer.step()
""",
        line=13,
        effect=(
            "model[2].weight.grad.norm() > 2 * torch.autograd.grad("
            "criterion(model(x), labels), model[2].weight)[0].norm()"
        ),
    ),
    # Accumulation over 4 micro-batches, but the gradients are cleared before every backward.
    Invalid(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
accum_steps = 4
batches = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(8)]
for i, (x, y) in enumerate(batches):
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(model(x), y) / accum_steps
    loss.backward()
    if (i + 1) % accum_steps == 0:
        optimizer.step()
    if i == 2:
        kept = model.weight.grad.clone()
        single = torch.autograd.grad(
            nn.functional.mse_loss(model(x), y) / accum_steps, model.weight
        )[0]
""",
        line=10,
        effect="torch.allclose(kept, single)",
    ),
    # A trainer API: forward_backward() per micro-batch clears first, optim_step() after them all.
    Invalid(
        """\
import torch
import torch.nn as nn


class Trainer:
    def __init__(self, model):
        self.model = model
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

    def forward_backward(self, x, y):
        self.optimizer.zero_grad()
        loss = nn.functional.mse_loss(self.model(x), y) / 3
        loss.backward()

    def optim_step(self):
        self.optimizer.step()


torch.manual_seed(0)
trainer = Trainer(nn.Linear(4, 1))
batches = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(3)]
for x, y in batches:
    trainer.forward_backward(x, y)
kept = trainer.model.weight.grad.clone()
last = torch.autograd.grad(nn.functional.mse_loss(trainer.model(x), y) / 3, trainer.model.weight)[0]
trainer.optim_step()
""",
        line=11,
        effect="torch.allclose(kept, last)",
    ),
]


def check_input_grad(ctx: Context, seen: InputGradRead) -> None:
    """Squiggled on the backward that adds onto the old `.grad`, where the fix clears it first."""
    read = seen.read
    name = ctx.text(read.value)
    fixes = []
    if isinstance(seen.backward, ast.stmt) and isinstance(read.value, (ast.Name, ast.Attribute)):
        fixes.append(
            ctx.fix(
                "GG201",
                "clear-input-grad",
                "insert-before",
                anchor=ctx.span(seen.backward),
                text=f"{name}.grad = None",
            )
        )
    related = [Related(ctx.span(read), f"reads the running sum: {ctx.text(read)}", "reused")]
    ctx.add("GG201", seen.backward, {"name": name, "read_line": read.lineno}, related, fixes, variant="input")


def check_discarded(ctx: Context, seen: DiscardedGradients) -> None:
    """Squiggled on the clear that throws the gradients away; the fix moves it after the step."""
    func = seen.call.func
    optimizer = ctx.text(func.value) if isinstance(func, ast.Attribute) else ctx.text(func)
    fixes = []
    if seen.step is not None:
        fixes.append(
            ctx.fix(
                "GG201", "zero-after-step", "move-after", stmt=ctx.span(seen.stmt), anchor=ctx.span(seen.step)
            )
        )
    # "note", not "freed": this backward frees no graph anyone needs (the hover would say so).
    related = [Related(ctx.span(seen.backward), "its gradients are thrown away", "note")]
    if seen.step is not None:
        related.append(Related(ctx.span(seen.step), "the step that should apply them", "reused"))
    ctx.add(
        "GG201",
        seen.stmt,
        {"optimizer": optimizer, "backward_line": seen.backward.lineno},
        related,
        fixes,
        variant="discards",
    )


def check_never_cleared(ctx: Context, seen: GradientsNeverCleared) -> None:
    """Reported on the backward that adds onto the old gradients (else the step)."""
    opt_name = ctx.text(seen.optimizer)
    related = [Related(ctx.span(seen.step), "the step that applies the summed gradients", "reused")]
    fields: dict[str, object] = {"optimizer": opt_name, "step_line": seen.step.lineno}
    where = seen.backward or seen.step
    if seen.cleared_before is not None and seen.anchor is not None:
        # `zero_grad()` written once, before the loop: the fix moves that statement in.
        early = seen.cleared_before
        fix = ctx.fix(
            "GG201", "zero-grad-into-loop", "move-before", stmt=ctx.span(early), anchor=ctx.span(seen.anchor)
        )
        related.insert(0, Related(ctx.span(early), "clears them once, before the loop", "built"))
        fields["clear_line"] = early.lineno
        ctx.add("GG201", where, fields, related, [fix], variant="before-loop")
        return
    fixes = []
    if seen.anchor is not None:
        where_fix = {"anchor": ctx.span(seen.anchor), "text": f"{opt_name}.zero_grad()"}
        fixes.append(ctx.fix("GG201", "zero-grad-before-backward", "insert-before", **where_fix))
    ctx.add("GG201", where, fields, related, fixes)


def check_between(ctx: Context, seen: ZeroGradBetween) -> None:
    """Reported on the `zero_grad()`; the fix moves it before the backward."""
    where = {"stmt": ctx.span(seen.zero_grad), "anchor": ctx.span(seen.backward)}
    fields = {
        "optimizer": ctx.text(seen.optimizer),
        "backward_line": seen.backward.lineno,
        "step_line": seen.step.lineno,
    }
    related = [
        Related(ctx.span(seen.backward), "its gradients are thrown away", "note"),
        Related(ctx.span(seen.step), "the step that should apply them", "reused"),
    ]
    fixes = [ctx.fix("GG201", "move-zero-grad", "move-before", **where)]
    ctx.add("GG201", seen.zero_grad, fields, related, fixes, variant="misplaced")


def check_reapplied(ctx: Context, seen: GradientsReapplied) -> None:
    """Reported on the backward that adds onto applied gradients, with the step as related."""
    step = seen.step
    optimizer = step.func.value if isinstance(step.func, ast.Attribute) else step.func
    fields = {"optimizer": ctx.text(optimizer), "step_line": step.lineno}
    related = [Related(ctx.span(step), "the step that applies them again", "reused")]
    ctx.add("GG201", seen.backward, fields, related, [], variant="flow")


CHECKS = {
    InputGradRead: check_input_grad,
    DiscardedGradients: check_discarded,
    GradientsNeverCleared: check_never_cleared,
    ZeroGradBetween: check_between,
    GradientsReapplied: check_reapplied,
}
