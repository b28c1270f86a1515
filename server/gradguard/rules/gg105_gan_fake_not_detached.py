"""GG105: a GAN's generated batch enters the discriminator step without `.detach()`.

## What it does

Finds the classic GAN step where the generator output `fake = G(z)` is fed to
the discriminator as is, the discriminator loss is backpropagated, and the
same `fake` is then used again for the generator's loss. The squiggle is on
the `fake` argument of the discriminator call in the D step.

## Why is this bad

Without `.detach()`, the D step's backward runs through the generator too and
frees the buffers of G's graph. The G step then backpropagates through `fake`
again, into that freed graph, and torch 2.13 raises:

```text
RuntimeError: Trying to backward through the graph a second time (or directly access saved tensors after they have already been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if you need to access saved tensors after calling backward.
```

The D step also wastes a full backward through G whose gradients no optimizer
of D will use.

When the generator steps first (its loss backpropagated with
`retain_graph=True`, then `opt_g.step()`) and the D step reuses the same
`fake`, the D step's backward walks back into G, whose weights the step
changed in place, and torch raises `RuntimeError: one of the variables needed
for gradient computation has been modified by an inplace operation`. The fix
is the same `.detach()`; moving the G step after the D backward would silence
the error but let the D loss train G.

## Example

```python
fake = G(z)
d_loss = bce(D(real), ones) + bce(D(fake), zeros)  # GG105
d_loss.backward()
opt_d.step()
g_loss = bce(D(fake), ones)
g_loss.backward()  # fails: G's buffers were freed by d_loss.backward()
```

## Fix

Give the discriminator a detached copy in its own step:

```python
d_loss = bce(D(real), ones) + bce(D(fake.detach()), zeros)
```

This costs nothing: the D step must not update G anyway, and skipping G's
backward makes it faster. `retain_graph=True` on `d_loss.backward()` also
silences the error, but it keeps G's buffers alive through the D step, pays
for a useless backward through G, and leaves D-loss gradients in G's `.grad`
that must be zeroed before the G step.

## When it does not fire

- The D step uses `fake.detach()`, or `fake` was produced under
  `torch.no_grad()`.
- The generator output is recomputed (`fake = G(z)` again) before the G step.
"""  # noqa: E501 (torch's error messages are quoted verbatim)

from __future__ import annotations

from typing import Any

from ..observations import Context, FakeReused
from .base import UNSAFE, Invalid, Rule, Valid

RULE = Rule(
    code="GG105",
    name="gan-fake-not-detached",
    summary="The generator's output goes into the discriminator's backward without .detach() and is reused.",
    message=(
        "`{fake}` goes into `{disc}` without `.detach()`, so the backward on line {backward_line} "
        "also frees the generator's graph behind it, and the backward on line {reuse_line} raises "
        "when it reaches that graph again; pass `{fake}.detach()` to `{disc}` here"
    ),
    variants={
        "stepped": (
            "`{fake}` goes into `{disc}` without `.detach()`, so the backward on line {reuse_line} "
            "also runs back through the generator, whose weights `{optimizer}.step()` on line "
            "{step_line} already changed in place, and raises; pass `{fake}.detach()` to `{disc}` here"
        ),
    },
    fixes={
        "detach-fake": (
            "Pass the detached fake batch to the discriminator step",
            "No downside: the D step must not update the generator, and it skips a useless "
            "backward through it.",
        ),
    },
    safety={
        "detach-fake": (
            UNSAFE,
            "The discriminator's loss no longer sends gradient into the generator. A standard "
            "loop clears that gradient before the generator's step anyway, but a loop that does "
            "not was training on it.",
        ),
    },
)

_MODELS = """\
import torch
import torch.nn as nn

torch.manual_seed(0)
G = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
D = nn.Sequential(nn.Linear(2, 8), nn.LeakyReLU(0.2), nn.Linear(8, 1))
opt_g = torch.optim.Adam(G.parameters(), lr=2e-4)
opt_d = torch.optim.Adam(D.parameters(), lr=2e-4)
bce = nn.BCEWithLogitsLoss()
real = torch.randn(16, 2)
ones = torch.ones(16, 1)
zeros = torch.zeros(16, 1)
"""

VALID: list[Valid] = [
    # The standard pattern: detach for the D step.
    Valid(
        _MODELS
        + """\
for step in range(2):
    fake = G(torch.randn(16, 4))
    d_loss = bce(D(real), ones) + bce(D(fake.detach()), zeros)
    opt_d.zero_grad()
    d_loss.backward()
    opt_d.step()
    g_loss = bce(D(fake), ones)
    opt_g.zero_grad()
    g_loss.backward()
    opt_g.step()
"""
    ),
    # The D step's fake batch is produced without recording.
    Valid(
        _MODELS
        + """\
for step in range(2):
    z = torch.randn(16, 4)
    with torch.no_grad():
        fake = G(z)
    d_loss = bce(D(real), ones) + bce(D(fake), zeros)
    opt_d.zero_grad()
    d_loss.backward()
    opt_d.step()
    g_loss = bce(D(G(z)), ones)
    opt_g.zero_grad()
    g_loss.backward()
    opt_g.step()
"""
    ),
    # The generator output is recomputed for the G step.
    Valid(
        _MODELS
        + """\
for step in range(2):
    z = torch.randn(16, 4)
    fake = G(z)
    d_loss = bce(D(real), ones) + bce(D(fake), zeros)
    opt_d.zero_grad()
    d_loss.backward()
    opt_d.step()
    fake = G(z)
    g_loss = bce(D(fake), ones)
    opt_g.zero_grad()
    g_loss.backward()
    opt_g.step()
"""
    ),
]

INVALID: list[Invalid] = [
    Invalid(
        _MODELS
        + """\
for step in range(2):
    fake = G(torch.randn(16, 4))
    d_loss = bce(D(real), ones) + bce(D(fake), zeros)
    opt_d.zero_grad()
    d_loss.backward()
    opt_d.step()
    g_loss = bce(D(fake), ones)
    opt_g.zero_grad()
    g_loss.backward()
    opt_g.step()
""",
        line=15,
        error="RuntimeError: Trying to backward through the graph a second time",
    ),
    # Module classes, the D output bound to a name first.
    Invalid(
        """\
import torch
import torch.nn as nn


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2))

    def forward(self, z):
        return self.net(z)


class Critic(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 1))

    def forward(self, x):
        return self.net(x)


torch.manual_seed(0)
gen = Generator()
critic = Critic()
opt_g = torch.optim.RMSprop(gen.parameters(), lr=5e-5)
opt_c = torch.optim.RMSprop(critic.parameters(), lr=5e-5)
real = torch.randn(8, 2)
for step in range(2):
    fake = gen(torch.randn(8, 4))
    critic_fake = critic(fake)
    critic_loss = critic_fake.mean() - critic(real).mean()
    opt_c.zero_grad()
    critic_loss.backward()
    opt_c.step()
    gen_loss = -critic(fake).mean()
    opt_g.zero_grad()
    gen_loss.backward()
    opt_g.step()
""",
        line=31,
        error="RuntimeError: Trying to backward through the graph a second time",
    ),
    # The generator steps first (its graph retained), then the D step reuses the same fake.
    Invalid(
        _MODELS
        + """\
for step in range(2):
    fake = G(torch.randn(16, 4))
    g_loss = bce(D(fake), ones)
    opt_g.zero_grad()
    g_loss.backward(retain_graph=True)
    opt_g.step()
    d_loss = bce(D(real), ones) + bce(D(fake), zeros)
    opt_d.zero_grad()
    d_loss.backward()
    opt_d.step()
""",
        line=19,
        error="RuntimeError: one of the variables needed for gradient computation has been modified",
    ),
]


def check_fake(ctx: Context, seen: FakeReused) -> None:
    """Reported at the discriminator call whose fake argument needs `.detach()`."""
    fields: dict[str, Any] = {
        "fake": ctx.text(seen.fake),
        "disc": seen.disc,
        "backward_line": seen.first.call.lineno,
        "reuse_line": seen.run.call.lineno,
    }
    if seen.step is not None and seen.optimizer is not None:
        fields["optimizer"] = ctx.text(seen.optimizer)
        fields["step_line"] = getattr(seen.step, "lineno", "?")
    ctx.add(
        "GG105",
        seen.fake,
        fields,
        list(seen.related),
        [ctx.fix("GG105", "detach-fake", "append", expr=ctx.span(seen.fake), suffix=".detach()")],
        seen.chain,
        variant="stepped" if seen.step is not None else None,
    )


CHECKS = {FakeReused: check_fake}
