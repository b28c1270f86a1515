"""Where gradguard keeps what it remembers between runs, and how it tells one text from another.

Imported by the quick lane of ``gradguard check`` (``quick.py``), so it loads nothing beyond ``os``
and ``sys``: the standard library's own SHA-1 (``_sha1``) gives the same digests as ``hashlib``
without loading OpenSSL.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # not typing's: the quick lane imports this module
if TYPE_CHECKING:
    from hashlib import sha1
else:
    try:
        from _sha1 import sha1
    except ImportError:  # pragma: no cover - a Python built without its own hash modules
        from hashlib import sha1


def digest_bytes(data: bytes) -> str:
    return sha1(data).hexdigest()


def digest(text: str) -> str:
    """The digest that tells one text of a module from another (and keys the on-disk caches)."""
    return digest_bytes(text.encode("utf-8", "surrogatepass"))


def cache_dir() -> str:
    """Where caches live: $GRADGUARD_CACHE_DIR, else the platform's user cache folder."""
    explicit = os.environ.get("GRADGUARD_CACHE_DIR")
    if explicit:
        return explicit
    home = os.path.expanduser("~")
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or os.path.join(home, "AppData", "Local")
        return os.path.join(base, "gradguard", "Cache")
    if sys.platform == "darwin":
        return os.path.join(home, "Library", "Caches", "gradguard")
    return os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.join(home, ".cache"), "gradguard")


def display_path(path: str) -> str:
    """The path relative to the working directory when it is inside it, as ruff prints paths."""
    try:
        relative = os.path.relpath(path)
    except ValueError:
        return str(path)
    return str(path) if relative.startswith("..") else relative
