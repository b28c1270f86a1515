"""The user's project around a file: which of its imports are the user's own modules, found by jedi.

The engine follows an import only when this module says it names a file of the project. jedi
resolves the name the way Python would import it (the importing file's package for relative imports,
the project's folders and the interpreter's ``sys.path`` for absolute ones); a name it resolves
outside the project (the standard library, site-packages, a virtual environment inside the project)
or not at all stays unknown. Resolution is cached per run, and on disk by the importing file's folder
and the module name (see ``cache``); the engine never waits on jedi for a name it has resolved once.
"""

from __future__ import annotations

import importlib.machinery
import logging
import os
import re
import sys
import threading
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Any

from .engine.modules import NEVER_FOLLOWED, ForeignModule, ModuleTable

logger = logging.getLogger(__name__)

_ROOT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", ".git", ".hg")
_ENV_PARTS = frozenset({"site-packages", "dist-packages", "node_modules", "__pypackages__"})


def project_root(path: str) -> str:
    """The folder of the project a file belongs to: the nearest folder above it with a project
    marker (pyproject.toml, setup.py, .git...), else the file's own folder."""
    start = Path(path).resolve()
    folder = start if start.is_dir() else start.parent
    for candidate in (folder, *folder.parents):
        if any((candidate / marker).exists() for marker in _ROOT_MARKERS):
            return str(candidate)
    return str(folder)


def _shadowed(name: str, *folders: str) -> bool:
    return any(
        os.path.exists(os.path.join(f, name + ".py")) or os.path.isdir(os.path.join(f, name)) for f in folders
    )


_IMPORT_NAMES = re.compile(
    r"^[ \t]*(?:from[ \t]+(?P<dots>\.*)(?P<frm>[\w.]*)[ \t]+import[ \t]+\(?(?P<names>[\w ,\t]*)"
    r"|import[ \t]+(?P<plain>[\w., \t]+))",
    re.M,
)


def imports_own_code(source: str) -> bool:
    """Might the text import a module of its project? (a relative import, or an absolute one that is
    neither the standard library nor torch/numpy): a cheap test, before any resolution."""
    for m in _IMPORT_NAMES.finditer(source):
        if m.group("dots"):
            return True
        for name in (m.group("frm") or m.group("plain") or "").split(","):
            top = name.split(" as ")[0].strip().split(".")[0]
            if top and top not in NEVER_FOLLOWED and top not in sys.stdlib_module_names:
                return True
    return False


def file_stamp(path: str) -> Hashable | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_mtime_ns, info.st_size)


def _read_file(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except (OSError, UnicodeDecodeError, ValueError):
        return None


class ProjectLoader:
    """The engine's ``Loader`` for one project: resolves with jedi, reads the text (an open editor's
    unsaved text first, through ``read``), and keeps each module parsed once in a ``ModuleTable``."""

    def __init__(
        self,
        root: str,
        read: Callable[[str], str | None] | None = None,
        resolutions: dict[str, str | None] | None = None,
        stamp: Callable[[str], Hashable | None] | None = None,
    ) -> None:
        self.root = str(Path(root).resolve())
        self.read = read or _read_file
        # What tells that a file's text may have changed (its size and time on disk; for an open
        # document, its version): the text is read again only then. None: always read.
        self.stamp = stamp or file_stamp
        self._current: dict[str, tuple[Hashable | None, ForeignModule | None]] = {}
        self.table = ModuleTable()
        self._jedi: Any = None
        self._project: Any = None
        self._environment: Any = None
        self._failed = False
        # "folder|level|module" -> the resolved path ("" when it is not the project's): a disk
        # cache's entries when given, written back by the caller.
        self.resolutions: dict[str, str | None] = resolutions if resolutions is not None else {}
        self.imported: dict[str, set[str]] = {}  # module path -> files seen importing it
        self.last_modules: list[ForeignModule] = []  # what the current analysis read (see begin)
        self._lock = threading.Lock()  # jedi is not thread-safe; the editor analyses in two threads
        self._tops: dict[tuple[str, str], bool] = {}  # (top-level name, folder) -> may be ours
        self.new_keys: list[str] = []  # resolutions made by jedi in this process (not from a cache)

    @property
    def warm(self) -> bool:
        """Has jedi been loaded (a first resolution costs about a second; later ones milliseconds)?"""
        return self._jedi is not None or self._failed

    def importers_of(self, path: str) -> set[str]:
        """Every file seen importing ``path``, directly or through other modules of the project."""
        out: set[str] = set()
        todo = [str(Path(path).resolve())]
        while todo:
            for importer in self.imported.get(todo.pop(), ()):
                if importer not in out:
                    out.add(importer)
                    todo.append(importer)
        return out

    def begin(self) -> None:
        """A new analysis starts: ``last_modules`` collects the modules it reads."""
        self.last_modules = []

    # -- the engine's Loader --------------------------------------------------------------

    def load(self, importer: str, module: str, level: int) -> ForeignModule | None:
        path = self.resolve(importer, module, level)
        if path is None:
            return None
        mod = self.current(path)
        if mod is not None:
            self.imported.setdefault(path, set()).add(importer)
            if mod not in self.last_modules:
                self.last_modules.append(mod)
        return mod

    def current(self, path: str) -> ForeignModule | None:
        """The module at ``path`` now: read and parsed again only when its stamp changed."""
        stamp = self.stamp(path)
        known = self._current.get(path)
        if known is not None and stamp is not None and known[0] == stamp:
            return known[1]
        source = self.read(path)
        mod = self.table.module(path, source, self.display(path)) if source is not None else None
        self._current[path] = (stamp, mod)
        return mod

    def display(self, path: str) -> str:
        try:
            return Path(path).relative_to(self.root).as_posix()
        except ValueError:
            return Path(path).name

    # -- resolution ---------------------------------------------------------------------

    def resolve(self, importer: str, module: str, level: int) -> str | None:
        """The project file ``import module`` (``level`` dots before it) names in ``importer``."""
        if importer.startswith("<"):
            importer = os.path.join(self.root, "__gradguard_input__.py")
        key = self._key(importer, module, level)
        if key is None:
            return None
        if key not in self.resolutions:
            with self._lock:
                if key not in self.resolutions:
                    # Every import of the same file at once: one jedi script resolves them about ten
                    # times faster than one script each, and the file's other imports come next.
                    wanted = [(module, level), *self._imports_of(importer)]
                    self._resolve_all(importer, wanted)
        return self.resolutions.get(key) or None

    def _key(self, importer: str, module: str, level: int) -> str | None:
        """The cache key of a resolution; None when the name is never the project's."""
        if not module and not level:
            return None
        top = module.split(".")[0]
        if not level and top in NEVER_FOLLOWED:
            return None
        folder = os.path.dirname(os.path.abspath(importer))
        if not level and top in sys.stdlib_module_names and not _shadowed(top, folder, self.root):
            return None  # the standard library (unless a file of the project has its name)
        # A relative import depends on the importing package; an absolute one on the folder only
        # when a file there has the name (a script's folder comes first on its path).
        shadowed = level or _shadowed(top, folder)
        return f"{folder if shadowed else self.root}|{level}|{module}"

    def _imports_of(self, importer: str) -> list[tuple[str, int]]:
        """The modules a file's import statements may name (``from m import a``: m, and m.a in case
        a is a submodule), read from its text."""
        text = self.read(importer) if os.path.exists(importer) else None
        out: list[tuple[str, int]] = []
        for m in _IMPORT_NAMES.finditer(text or ""):
            if m.group("frm") is not None or m.group("dots"):
                level, base = len(m.group("dots") or ""), m.group("frm") or ""
                if base or level:
                    out.append((base, level))
                for name in re.findall(r"\w+", (m.group("names") or "").split(" as ")[0]):
                    out.append((f"{base}.{name}" if base else name, level))
            else:
                for part in (m.group("plain") or "").split(","):
                    name = part.split(" as ")[0].strip()
                    if name:
                        out.append((name, 0))
        return out

    def _resolve_all(self, importer: str, wanted: list[tuple[str, int]]) -> None:
        """Resolve these imports of one file. jedi says which module a top-level name is, on the
        project's path as Python would search it (one script for all of the file's names); below
        it, submodules are found in their package's folders by the import system's own finder
        (`importlib.machinery.PathFinder`, which runs and parses nothing), as an import would."""
        pending: list[tuple[str, list[str], int]] = []  # (key, parts, level)
        tops: set[str] = set()
        for module, level in wanted:
            key = self._key(importer, module, level)
            if key is None or key in self.resolutions or any(k == key for k, _, _ in pending):
                continue
            parts = module.split(".") if module else []
            if not all(p.isidentifier() for p in parts) or (not parts and not level):
                self._settle(key, "")
            elif not level and not self._may_be_ours(parts[0], importer):
                self._settle(key, "")  # an installed package or the standard library
            else:
                pending.append((key, parts, level))
                if not level:
                    tops.add(parts[0])
        top_paths = self._resolve_tops(importer, sorted(tops))
        for key, parts, level in pending:
            if level:
                package = Path(importer).resolve().parent
                for _ in range(level - 1):
                    package = package.parent
                if not parts:  # `from . import x`: the package's own __init__.py
                    init = package / "__init__.py"
                    self._settle(key, self._inside(str(init)) or "" if init.is_file() else "")
                    continue
                self._settle(key, self._walk([str(package)], parts))
                continue
            top = top_paths.get(parts[0])
            if top is None:
                self._settle(key, "")
            elif len(parts) == 1:
                self._settle(key, top if top.endswith(".py") else "")
            elif Path(top).name == "__init__.py" or not top.endswith(".py"):
                folder = str(Path(top).parent) if top.endswith(".py") else top
                self._settle(key, self._walk([folder], parts[1:]))
            else:
                self._settle(key, "")  # a plain module has no submodules

    def _settle(self, key: str, path: str) -> None:
        self.resolutions[key] = path
        self.new_keys.append(key)

    def _walk(self, locations: list[str], parts: list[str]) -> str:
        """The file of the submodule ``parts`` below these package folders ("" when none)."""
        for i, part in enumerate(parts):
            try:
                spec = importlib.machinery.PathFinder.find_spec(part, locations)
            except (ImportError, ValueError, OSError):
                return ""
            if spec is None:
                return ""
            if i == len(parts) - 1:
                return self._inside(spec.origin) or "" if spec.origin and spec.has_location else ""
            locations = list(spec.submodule_search_locations or [])
            if not locations:
                return ""
        return ""

    def _resolve_tops(self, importer: str, tops: list[str]) -> dict[str, str]:
        """Top-level module names -> the project file (or, for a namespace package, folder) jedi
        resolves them to from this file; names outside the project are left out."""
        out: dict[str, str] = {}
        jedi = self._load_jedi()
        if jedi is None or not tops:
            return out
        try:
            script = jedi.Script(
                "".join(f"import {t}\n" for t in tops),
                path=importer,
                project=self._project,
                environment=self._environment,
            )
            for row, top in enumerate(tops, start=1):
                for name in script.goto(row, len("import ") + len(top) - 1, follow_imports=True):
                    if name.type == "module" and name.module_path is not None:
                        inside = self._inside(str(name.module_path))
                        if inside:
                            out[top] = inside
                        break
        except Exception:  # jedi on odd input: those names stay unknown, the analysis goes on
            logger.debug("gradguard: jedi could not resolve imports of %s", importer, exc_info=True)
        for top in tops:
            if top not in out:
                # A namespace package (a folder without __init__.py): jedi names no file for it.
                spec = importlib.machinery.PathFinder.find_spec(top, self._search_path(importer))
                if spec is not None and spec.origin is None and spec.submodule_search_locations:
                    folders = [p for p in spec.submodule_search_locations if self._within(p)]
                    if folders:
                        out[top] = folders[0]
        return out

    def _may_be_ours(self, top: str, importer: str) -> bool:
        """Might the top-level name be a module of the project? Where the import system finds it first
        (without running or parsing anything) on the folders a script there sees, the project's, then
        the interpreter's path: a name found outside the project first is not followed, and jedi is
        not asked (it would parse that package to say so)."""
        found = self._tops.get((top, os.path.dirname(importer)))
        if found is None:
            try:
                spec = importlib.machinery.PathFinder.find_spec(top, self._search_path(importer))
            except (ImportError, ValueError, OSError):
                spec = None
            places = [spec.origin] if spec is not None and spec.origin else []
            if spec is not None and spec.submodule_search_locations:
                places += list(spec.submodule_search_locations)
            found = not places or any(self._within(p) for p in places)
            self._tops[(top, os.path.dirname(importer))] = found
        return found

    def _search_path(self, importer: str) -> list[str]:
        """The importing file's folder (and the folder above its package), the project's folder and
        its `src/`, then the interpreter's path: where a script of the project finds its imports."""
        folder = Path(importer).resolve().parent
        out = [str(folder)]
        while (folder / "__init__.py").is_file() and folder.parent != folder:
            folder = folder.parent
            out.append(str(folder))
        out += [self.root, os.path.join(self.root, "src")]
        return out + [p for p in sys.path if p and os.path.isdir(p)]

    def _within(self, path: str) -> bool:
        try:
            rel = Path(path).resolve().relative_to(self.root)
        except (ValueError, OSError):
            return False
        return not any(part in _ENV_PARTS or part.startswith(".") for part in rel.parts)

    def _inside(self, path: str) -> str | None:
        """The path when it is a Python file of the project (not an installed package in it)."""
        resolved = Path(path).resolve()
        return str(resolved) if resolved.suffix == ".py" and self._within(str(resolved.parent)) else None

    def _load_jedi(self) -> Any:
        if self._jedi is None and not self._failed:
            try:
                import jedi

                # The server's own interpreter: the user's project is found through the project
                # folder, not through an interpreter the workspace names (which is never run).
                self._project = jedi.Project(self.root, smart_sys_path=True, load_unsafe_extensions=False)
                self._environment = jedi.InterpreterEnvironment()
                self._jedi = jedi
            except Exception:
                logger.warning("gradguard: jedi is unavailable; imports are not followed", exc_info=True)
                self._failed = True
        return self._jedi
