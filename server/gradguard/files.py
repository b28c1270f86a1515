"""Writing a file so that a reader never sees half of it."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path


def write_atomic(path: Path, text: str | bytes, encoding: str = "utf-8") -> None:
    """Replace ``path`` with ``text`` (or bytes): a temporary file in the same folder, fsync, rename.
    A file that exists keeps its permissions; newlines are written as they are in ``text``."""
    import tempfile  # only --fix and the cache write files: not paid for at start-up

    mode = path.stat().st_mode & 0o7777 if path.exists() else None
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".gradguard-tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(text if isinstance(text, bytes) else text.encode(encoding))
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(temp, mode)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
