"""gradguard: a linter for PyTorch autograd graph pitfalls."""

from __future__ import annotations

__version__ = "0.1.0"

TYPE_CHECKING = False  # not typing's: `gradguard check` answered from its cache must start fast
if TYPE_CHECKING:
    from typing import Any

    from .api import check_source
    from .findings import Finding

__all__ = ["Finding", "__version__", "check_source"]


def __getattr__(name: str) -> Any:
    # Loaded on first use: `gradguard --version` and `gradguard rule` need no analysis engine.
    if name == "check_source":
        from .api import check_source

        return check_source
    if name == "Finding":
        from .findings import Finding

        return Finding
    raise AttributeError(f"module 'gradguard' has no attribute {name!r}")
