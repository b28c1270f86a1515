"""The quick lane: ``gradguard check FILE...`` answered again without loading the checker.

Most checks repeat one that already ran: the same files, unchanged, from the same folder. After a
plain text-format check (``gradguard check`` followed by file paths and nothing else) the full
command leaves, per file, the lines it printed and what they depended on: the digest of the file's
bytes, of each configuration candidate its settings were looked up in, and of each module of the
project its analysis read. The next identical check reads that back, verifies every digest by
reading the files again, and prints the same report; anything it cannot verify (another option,
a folder, a changed or new file, a damaged index) sends the command down the full path, which is
always right. It loads nothing beyond ``os``, ``sys`` and ``marshal``: start-up is what makes a
linter pleasant in a pre-commit hook or on every save.

The index is one file per working folder in the cache folder: a magic line, the SHA-1 of the rest,
then ``marshal`` data, checked before it is read (so a damaged file is ignored, never trusted).
"""

from __future__ import annotations

import marshal
import os
import sys

from .store import cache_dir, digest, digest_bytes, display_path
from .summary import summary

TYPE_CHECKING = False  # not typing's: importing typing alone costs a tenth of this lane's time
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import TextIO

    from .config import Resolver
    from .runner import Outcome

    # own digest, resolved folder, configuration candidates, modules read, report lines after
    # "path:", findings per severity, fixable, fixable only with --unsafe-fixes
    Entry = tuple[
        str,
        str,
        tuple[tuple[str, str | None], ...],
        tuple[tuple[str, str | None], ...],
        tuple[str, ...],
        tuple[tuple[str, int], ...],
        int,
        int,
    ]

MAGIC = b"gradguard-quick 1\n"
# Entries per working folder, newest kept: a bound on the index, which is read whole.
MAX_ENTRIES = 5000


def _stamp() -> str:
    from . import __version__

    # marshal's format and gradguard's findings both change between versions.
    return f"{__version__}:{sys.version_info[0]}.{sys.version_info[1]}"


def plain_paths(argv: Sequence[str]) -> list[str] | None:
    """The paths of ``check PATH...`` with no option, each written plainly (no ``.``, ``..`` or
    doubled separators, so it names the same file as the full command's absolute path); else None."""
    if len(argv) < 2 or argv[0] != "check" or sys.platform == "win32":
        return None
    paths = list(argv[1:])
    for path in paths:
        if not path or path.startswith("-") or os.path.normpath(path) != path:
            return None
        if ".." in path.split(os.sep):
            return None
    return paths


def _index_file() -> str:
    return os.path.join(cache_dir(), f"quick-{digest(os.getcwd())[:20]}.bin")


def _read_index() -> dict[str, Entry]:
    try:
        with open(_index_file(), "rb") as handle:
            data = handle.read()
    except OSError:
        return {}
    head, body = data[: len(MAGIC) + 41], data[len(MAGIC) + 41 :]
    if head != MAGIC + digest_bytes(body).encode("ascii") + b"\n":
        return {}
    try:
        stamp, entries = marshal.loads(body)
    except (ValueError, EOFError, TypeError):
        return {}
    return entries if stamp == _stamp() and isinstance(entries, dict) else {}


def _same_bytes(path: str, expected: str | None) -> bool:
    """Whether ``path`` still holds bytes of digest ``expected`` (None: still is no regular file)."""
    if expected is None:
        return not os.path.isfile(path)
    try:
        with open(path, "rb") as handle:
            return digest_bytes(handle.read()) == expected
    except OSError:
        return False


def _still_holds(path: str, entry: Entry) -> bool:
    own, folder, sources, deps = entry[:4]
    if not os.path.isfile(path) or not _same_bytes(path, own):
        return False
    if os.path.dirname(os.path.realpath(path)) != folder:
        return False
    return all(_same_bytes(p, d) for p, d in sources) and all(_same_bytes(p, d) for p, d in deps)


def answer(argv: Sequence[str], stdout: TextIO) -> int | None:
    """The exit code of a check answered from the index, its report written; None when the full
    command must run (nothing is written then)."""
    paths = plain_paths(argv)
    if paths is None:
        return None
    try:
        entries = _read_index()
        cwd = os.getcwd()
        files = sorted({os.path.join(cwd, p) for p in paths}, key=lambda f: f.split(os.sep))
        counts: dict[str, int] = {}
        fixable = hidden = 0
        report: list[str] = []
        for file in files:
            entry = entries.get(file)
            if entry is None or not _still_holds(file, entry):
                return None
            lines, severities, file_fixable, file_hidden = entry[4:]
            shown = display_path(file)
            report.extend(f"{shown}:{line}" for line in lines)
            for severity, n in severities:
                counts[severity] = counts.get(severity, 0) + n
            fixable += file_fixable
            hidden += file_hidden
    except (OSError, ValueError, TypeError):
        return None
    stdout.write("".join(report) + summary(counts, fixable, hidden=hidden))
    return 1 if report else 0


def entries_from(outcomes: Sequence[Outcome], resolver: Resolver) -> dict[str, Entry]:
    """What a full plain check found per file, for ``remember``. A file is left out when anything
    it depended on cannot be pinned to bytes on disk (changed while it was checked, say)."""
    from functools import partial

    from . import projects
    from .output import severities, tail
    from .runner import never_analysed

    result: dict[str, Entry] = {}
    for outcome in outcomes:
        path, text = outcome.job.path, outcome.original
        where = resolver.sources(path)
        if outcome.error or text is None or where is None:
            continue
        own = _pinned(path, partial(bytes.decode, encoding=outcome.encoding), digest(text))
        if never_analysed(text, outcome.job):
            deps: dict[str, str] | None = {}
        else:
            deps = projects.deps_of(path, text)
        if own is None or deps is None:
            continue
        modules = tuple((dep, _pinned(dep, _as_module, d)) for dep, d in deps.items())
        if any(d is None for _, d in modules):
            continue
        found = outcome.diagnostics
        result[path] = (
            own,
            where[0],
            tuple(where[1]),
            modules,
            tuple(tail(d) for d in found),
            tuple(severities(found).items()),
            sum(1 for d in found if d.fixable),
            sum(1 for d in found if d.unsafe_fixable),
        )
    return result


def _as_module(raw: bytes) -> str:
    """A module's bytes as the project loader reads them (UTF-8, universal newlines)."""
    return raw.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")


def _pinned(path: str, decode: Callable[[bytes], str], expected: str) -> str | None:
    """The digest of the file's bytes if, decoded, they still are the text the check read (of
    digest ``expected``); None when they are not or cannot be read."""
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
        return digest_bytes(raw) if digest(decode(raw)) == expected else None
    except (OSError, UnicodeError, LookupError):
        return None


def remember(files: dict[str, Entry]) -> None:
    """Keep ``files`` (from ``entries_from``) in the index of this working folder, merged over
    what is on disk. Never raises: the next check just runs in full."""
    from pathlib import Path

    from .files import write_atomic

    if not files:
        return
    try:
        entries = _read_index()
        for path in files:
            entries.pop(path, None)  # re-inserted last: the newest survive the bound
        entries.update(files)
        while len(entries) > MAX_ENTRIES:
            del entries[next(iter(entries))]
        payload = marshal.dumps((_stamp(), entries))
        target = _index_file()
        os.makedirs(os.path.dirname(target), exist_ok=True)
        write_atomic(Path(target), MAGIC + digest_bytes(payload).encode("ascii") + b"\n" + payload)
    except (OSError, ValueError):
        pass
