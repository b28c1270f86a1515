"""## What it does

Reports a file that does not parse, at the place the parser stopped: a
Python 2 `print "..."`, a bracket never closed, a block with no indented
body, a half-typed line. In a notebook, each code cell that does not parse
gets its own finding, and the other cells are still checked without it.

## Why is this bad

Python cannot run the file at all: it stops with the error in the message
before running its first line. gradguard reads code with the same parser,
so it cannot check the file either, and without this finding a broken file
would look like a file with no pitfalls ("All checks passed!").

The parser is the one of the Python that runs gradguard (the message says
which version). Code written for a newer Python (a `type` alias statement
read by Python 3.11, say) is reported too: check it with that Python, or
point the editor's `gradguard.interpreter` setting at it.

## Example

```python
import torch

loss = (torch.ones(3, requires_grad=True) * 2).sum()
loss.backward()
print "loss", loss.item()  # GG000: Python 2 syntax
```

```text
SyntaxError: Missing parentheses in call to 'print'. Did you mean print(...)?
```

## Fix

Correct the syntax (here `print("loss", loss.item())`). gradguard offers no
automatic fix: it cannot know what the code was meant to say. In the editor,
the findings of the last version of the file that parsed stay shown while
you finish typing, and this finding says so.

## When it does not fire

- Files that never mention `torch` are not read beyond that test, so they
  get no finding of any rule, this one included.
- In notebooks, IPython syntax (`%magic`, `%%time`, `!shell`, `x = !ls`,
  `obj?`) and top-level `await` are valid, not syntax errors; a cell in
  another language (`%%bash`) is skipped.
- `--ignore GG000` or `# noqa: GG000` on the line silence it, like any rule.
"""

from __future__ import annotations

import sys

from ..observations import Context, Unparsable
from .base import Invalid, Rule, Valid

RULE = Rule(
    code="GG000",
    name="syntax-error",
    summary="The file (or a notebook cell) does not parse, so it was not checked.",
    # Fields: kind (SyntaxError, IndentationError...), reason (the parser's words), python (3.11).
    message="Python {python} cannot parse this file ({kind}: {reason}), so gradguard has not checked it",
    variants={
        "cell": "Python {python} cannot parse this cell ({kind}: {reason}), so gradguard checked the "
        "other cells without it",
    },
)

VALID: list[Valid] = [
    Valid(
        """
import torch

loss = (torch.ones(3, requires_grad=True) * 2).sum()
loss.backward()
print("loss", loss.item())
"""
    ),
    Valid(
        """
import torch

model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    opt.zero_grad()
    if (loss := model(torch.ones(4, 2)).pow(2).mean()) is not None:
        loss.backward()
    opt.step()
"""
    ),
]

INVALID: list[Invalid] = [
    Invalid(
        """
import torch

loss = (torch.ones(3, requires_grad=True) * 2).sum()
loss.backward()
print "loss", loss.item()
""",
        line=6,
        error="SyntaxError: Missing parentheses in call to 'print'",
    ),
    Invalid(
        """
import torch

model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1
for step in range(3):
    opt.zero_grad()
""",
        line=5,
        error="SyntaxError: '(' was never closed",
    ),
    Invalid(
        """
import torch

model = torch.nn.Linear(2, 1)
for step in range(3):
loss = model(torch.ones(4, 2)).sum()
""",
        line=6,
        error="IndentationError: expected an indented block after 'for' statement on line 5",
    ),
]


def check_unparsable(ctx: Context, seen: Unparsable) -> None:
    python = f"{sys.version_info.major}.{sys.version_info.minor}"
    fields = {"kind": seen.kind, "reason": seen.reason, "python": python}
    ctx.add("GG000", None, fields, variant="cell" if seen.cell else None, span=seen.span)


CHECKS = {Unparsable: check_unparsable}
