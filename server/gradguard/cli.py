"""The ``gradguard`` command's entry point.

A plain ``gradguard check FILE...`` that repeats an earlier one is answered by the quick lane
(``quick.py``), which loads almost nothing; everything else, and every check the quick lane cannot
verify, runs the full command (``command.py``). Exit codes as ruff: 0 no findings, 1 findings (or
files that could not be read), 2 usage or configuration errors.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # not typing's: the quick lane must not pay for importing typing
if TYPE_CHECKING:
    from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    from .quick import answer

    args = list(sys.argv[1:] if argv is None else argv)
    code = answer(args, sys.stdout)
    if code is not None:
        return code
    from .command import main as full

    return full(args)
