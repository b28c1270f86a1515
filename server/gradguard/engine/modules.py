"""Other modules of the user's project, as the engine sees them: parsed once, placed in line space.

A file's analysis may run code that an import brings from another file of the project (a model's
``forward`` in ``model.py``, a meter in ``utils.py``). Each such module is parsed once and its line
numbers moved to a block of its own, ``LINE_BLOCK * n`` onwards, so one line number names one place
in one file: every position the engine keeps stays a plain ``ast`` position, and a finding that lands
in another module is recognised by its line alone (and taken back to the file being analysed, see
``Reporter.relocate``).

Which file an import names is not decided here: a ``Loader`` (jedi, outside the engine) says it.
"""

from __future__ import annotations

import ast
import re
from typing import Any, Protocol

from ..record import field, record
from ..store import digest
from .blocks import annotate_blocks

# Lines of the analysed file are below this; module n of a project has lines n * LINE_BLOCK + line.
LINE_BLOCK = 1_000_000
MAX_MODULES = 40  # run per analysed file: a module that imports half the project is still bounded
MAX_MODULE_LINES = 20_000  # a generated or vendored file is not followed
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
# Top-level modules never followed into the project: what the engine models itself.
NEVER_FOLLOWED = frozenset({"torch", "numpy", "__future__"})


@record(slots=True, eq=False)
class ForeignModule:
    """Another file of the project: its text, its tree (lines moved to its block), its block."""

    path: str
    display: str  # how messages name it: the path relative to the project, or its file name
    source: str
    tree: ast.Module
    block: int
    digest: str
    lines: list[str] = field(default_factory=list)
    blocks: dict[int, list[ast.stmt]] | None = None
    scopes: dict[int, int] | None = None
    # Its names after it ran, when they hold no object of one analysis (only classes, functions,
    # constants, imports): reused by later analyses while the modules it read are unchanged.
    env_cache: tuple[dict[str, Any], tuple[tuple[str, ForeignModule], ...]] | None = None
    # Per function: its name, whether its text runs a backward, the names it calls (made once:
    # every analysis that runs the module asks which of its functions may backpropagate).
    backprop_calls: tuple[tuple[str, bool, frozenset[str]], ...] | None = None

    def annotations(self) -> tuple[dict[int, list[ast.stmt]], dict[int, int]]:
        """Its statements' enclosing lists and functions (see blocks.annotate_blocks), made once."""
        if self.blocks is None:
            blocks: dict[int, list[ast.stmt]] = {}
            scopes: dict[int, int] = {}
            annotate_blocks(self.tree.body, blocks, scopes, -self.block)
            self.blocks, self.scopes = blocks, scopes
        return self.blocks, self.scopes or {}


class Loader(Protocol):
    """Finds the project file an import names (None: not the user's code, or unknown)."""

    def load(self, importer: str, module: str, level: int) -> ForeignModule | None: ...

    def current(self, path: str) -> ForeignModule | None:
        """The module at ``path`` as it is now (the same object while its text is unchanged)."""
        ...


class ModuleTable:
    """The modules seen so far, by path; a module keeps its block for the table's life, and is
    parsed again only when its text changes."""

    def __init__(self) -> None:
        self._by_path: dict[str, ForeignModule] = {}
        self._blocks: dict[str, int] = {}

    def module(self, path: str, source: str, display: str) -> ForeignModule | None:
        text_digest = digest(source)
        known = self._by_path.get(path)
        if known is not None and known.digest == text_digest:
            return known
        if source.count("\n") > MAX_MODULE_LINES:
            return None
        block = self._blocks.setdefault(path, len(self._blocks) + 1)
        try:
            tree = ast.parse(source, filename=path)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None  # a module that does not parse is unknown to its importers
        ast.increment_lineno(tree, block * LINE_BLOCK)
        found = ForeignModule(path, display, source, tree, block, text_digest, _LINE_BREAK.split(source))
        self._by_path[path] = found
        return found


@record(slots=True)
class Namespace:
    """A module of the project bound to a name (``import utils as U``): its names after it ran,
    and its submodules imported through it (``import pkg.models``)."""

    module: ForeignModule | None
    env: dict[str, Any] = field(default_factory=dict)  # name -> the engine's value
    submodules: dict[str, Namespace] = field(default_factory=dict)


@record(slots=True, eq=False)
class LazyImport:
    """A name an import binds, resolved on first use: only imports the analysis reads cost a
    resolution and a module run. ``name`` for ``from module import name``; else ``import module``
    (``top``: bound to the first part, as ``import a.b`` binds ``a``)."""

    importer: str  # the path of the importing file (the analysed file's name for its own imports)
    module: str
    level: int
    name: str | None = None
    top: bool = False


class VirtualLines:
    """The analysed file's lines, and each imported module's in its block (0-based, as a list)."""

    def __init__(self, main: list[str], modules: dict[int, ForeignModule]) -> None:
        self.main = main
        self.modules = modules

    def __len__(self) -> int:
        return len(self.main)

    def _lines(self, index: int) -> tuple[list[str], int]:
        block = (index + 1) // LINE_BLOCK
        if block == 0:
            return self.main, 0
        mod = self.modules.get(block)
        return (mod.lines if mod is not None else []), block * LINE_BLOCK

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            start = index.start or 0
            lines, base = self._lines(start)
            stop = index.stop if index.stop is not None else base + len(lines)
            return lines[max(0, start - base) : max(0, stop - base)]
        lines, base = self._lines(index)
        return lines[index - base]
