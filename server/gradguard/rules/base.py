"""What every rule module declares: its identity, message, fixes and examples."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from ..record import field, record

if TYPE_CHECKING:
    from ..engine.state import BackwardRun
    from ..findings import FixRef
    from ..observations import Context


@record(frozen=True, slots=True)
class Valid:
    """Code that must run clean under torch and get no finding of this rule."""

    source: str


@record(frozen=True, slots=True)
class Invalid:
    """Code that gets a finding of this rule on ``line``.

    ``error`` is what running it under torch raises, as ``"ExceptionType: first
    words of the message"`` (a prefix of ``f"{type(e).__name__}: {e}"``), or None
    for silent rules, whose example runs without an exception. ``effect`` is, for
    silent rules, a Python expression evaluated in the example's namespace after
    it ran, that is true when the silent damage happened (so the test proves it).
    After gradguard's preferred fix the source must run clean and get no finding
    of this rule; the test suite checks that.
    """

    source: str
    line: int
    error: str | None = None
    effect: str | None = None


SAFE, UNSAFE, DISPLAY = "safe", "unsafe", "display"


@record(frozen=True, slots=True)
class Rule:
    code: str
    name: str
    summary: str
    # str.format template; the fields each rule uses are listed in its module.
    message: str
    # fix kind -> (title, trade-off), in rank order, preferred first.
    fixes: dict[str, tuple[str, str]] = field(default_factory=dict)
    # Other message templates for variants of the rule, by key.
    variants: dict[str, str] = field(default_factory=dict)
    # fix kind -> (applicability, why), for every fix: SAFE fixes only remove the bug (`--fix` and
    # fix-all apply them); UNSAFE ones change what is computed or what trains (shown in the
    # editor, applied with `--unsafe-fixes`); DISPLAY ones are only shown.
    safety: dict[str, tuple[str, str]] = field(default_factory=dict)

    @property
    def family(self) -> str:
        return {"0": "syntax", "1": "error", "2": "silent", "3": "waste"}[self.code[2]]


def listed(names: list[str] | tuple[str, ...]) -> str:
    """Names quoted for a message: `h` and `c`; `a`, `b` and `c`."""
    quoted = [f"`{n}`" for n in names]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]


def retain_fix(ctx: Context, code: str, first_backward: ast.Call) -> FixRef:
    """retain_graph=True on the first backward: the second pass then finds the buffers kept."""
    span = ctx.span(first_backward)
    return ctx.fix(code, "retain-graph", "set-keyword", call=span, name="retain_graph", value="True")


def gated(run: BackwardRun) -> bool:
    """Does this (failing) backward run later than in the second iteration of a loop: one followed
    number by number whose backward runs every k-th iteration (`if (t + 1) % 4 == 0:`)? Then "the
    next iteration" is not where it fails, and a fix at the loop's top would cut its k-step chunks."""
    return any(iteration > 2 for _, iteration in run.ipath)
