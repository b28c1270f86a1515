"""gradguard: a linter for PyTorch autograd graph pitfalls."""

from __future__ import annotations

__version__ = "0.1.0"

from .api import check_source
from .findings import Finding

__all__ = ["Finding", "__version__", "check_source"]
