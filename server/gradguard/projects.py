"""Projects seen by one ``gradguard check`` process: a loader per project, and the on-disk cache.

The cache is a JSON file per project folder, in the platform's cache location (``GRADGUARD_CACHE_DIR``
overrides it). It holds jedi's resolutions (importing folder and module name -> file) and, per checked
file, the findings of its last analysis keyed by the file's text, the settings, gradguard's version
and the text of every project module the analysis read: a file is analysed again when it or any of
those modules changes. A cache that cannot be read, is of another version or another shape is
ignored and rewritten, never trusted. Writes are atomic (temporary file, then rename) and merge
with what other processes wrote meanwhile.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from .files import write_atomic
from .findings import Finding, FixRef, Related, Span
from .project import ProjectLoader, project_root
from .store import cache_dir as _cache_folder
from .store import digest

CACHE_VERSION = 1
_loaders: dict[str, ProjectLoader] = {}
_roots: dict[str, str] = {}  # folder -> project root
_caches: dict[str, dict[str, Any]] = {}  # root -> cache document (as read, then updated)
_dirty: set[str] = set()
_fresh: dict[str, dict[str, Any]] = {}  # root -> file entries made since the last drain


def cache_dir() -> Path:
    """Where caches live: $GRADGUARD_CACHE_DIR, else the platform's user cache folder."""
    return Path(_cache_folder())


def _cache_file(root: str) -> Path:
    return cache_dir() / f"{digest(root)[:20]}.json"


def _version() -> str:
    from . import __version__

    return f"{CACHE_VERSION}:{__version__}"


def _read_cache(root: str) -> dict[str, Any]:
    empty: dict[str, Any] = {"version": _version(), "root": root, "resolutions": {}, "files": {}}
    try:
        data = json.loads(_cache_file(root).read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return empty
    if (
        not isinstance(data, dict)
        or data.get("version") != _version()
        or data.get("root") != root
        or not isinstance(data.get("resolutions"), dict)
        or not isinstance(data.get("files"), dict)
        or not all(isinstance(k, str) and isinstance(v, str) for k, v in data["resolutions"].items())
    ):
        return empty  # another version's or a damaged cache: start again
    return data


def loader_for(path: str, cache: bool = True) -> ProjectLoader:
    """The loader of the project the file belongs to (one per project per process)."""
    folder = os.path.dirname(os.path.abspath(path))
    root = _roots.get(folder)
    if root is None:
        root = _roots[folder] = project_root(folder)
    loader = _loaders.get(root)
    if loader is None:
        resolutions: dict[str, str | None] = {}
        if cache:
            doc = _caches.setdefault(root, _read_cache(root))
            resolutions = doc["resolutions"]
        loader = _loaders[root] = ProjectLoader(root, resolutions=resolutions)
    return loader


def cached_findings(path: str, source: str, settings_key: str) -> list[Finding] | None:
    """The findings of the file's last analysis, if nothing it read has changed since."""
    loader = loader_for(path)
    doc = _caches.get(loader.root)
    entry = doc["files"].get(os.path.abspath(path)) if doc is not None else None
    if not isinstance(entry, dict):
        return None
    try:
        if entry["digest"] != digest(source) or entry["settings"] != settings_key:
            return None
        for dep, dep_digest in entry["deps"].items():
            if _digest_of(loader, dep) != dep_digest:
                return None
        return [_finding_from_json(f) for f in entry["findings"]]
    except (KeyError, TypeError, ValueError, AttributeError):
        return None  # a damaged entry: analysed again


def deps_of(path: str, source: str) -> dict[str, str] | None:
    """The project modules (path -> digest of the text read) that the cached findings of ``path``
    for the text ``source`` depend on; None when no such findings are cached."""
    doc = _caches.get(loader_for(path).root)
    entry = doc["files"].get(os.path.abspath(path)) if doc is not None else None
    if not isinstance(entry, dict) or entry.get("digest") != digest(source):
        return None
    deps = entry.get("deps")
    return dict(deps) if isinstance(deps, dict) else None


_digests: dict[str, tuple[object, str | None]] = {}  # path -> (stamp, digest of its text)


def _digest_of(loader: ProjectLoader, path: str) -> str | None:
    """The digest of a module's text, read again only when its stamp (size and time) changed."""
    stamp = loader.stamp(path)
    known = _digests.get(path)
    if known is not None and stamp is not None and known[0] == stamp:
        return known[1]
    text = loader.read(path)
    found = digest(text) if text is not None else None
    _digests[path] = (stamp, found)
    return found


def store_findings(path: str, source: str, settings_key: str, findings: list[Finding]) -> None:
    loader = loader_for(path)
    doc = _caches.get(loader.root)
    if doc is None:
        return
    deps = {m.path: m.digest for m in loader.last_modules}
    entry = {
        "digest": digest(source),
        "settings": settings_key,
        "deps": deps,
        "findings": [_finding_to_json(f) for f in findings],
    }
    doc["files"][os.path.abspath(path)] = entry
    _fresh.setdefault(loader.root, {})[os.path.abspath(path)] = entry
    _dirty.add(loader.root)


def save_caches() -> None:
    """Write what changed, merged over what other processes wrote meanwhile. Never raises."""
    _mark_resolutions_dirty()
    for root in list(_dirty):
        doc = _caches.get(root)
        if doc is None:
            continue
        try:
            on_disk = _read_cache(root)
            on_disk["resolutions"].update(doc["resolutions"])
            on_disk["files"].update(doc["files"])
            target = _cache_file(root)
            target.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(target, json.dumps(on_disk))
        except OSError:
            pass  # a read-only or full disk: the next run analyses again
        _dirty.discard(root)


def drain() -> dict[str, Any]:
    """What this process added to its caches since the last drain, by project root."""
    out: dict[str, Any] = {}
    for root, loader in _loaders.items():
        resolutions = {k: loader.resolutions.get(k) or "" for k in loader.new_keys}
        loader.new_keys = []
        files = _fresh.pop(root, {})
        if resolutions or files:
            out[root] = {"resolutions": resolutions, "files": files}
    _dirty.clear()
    return out


def absorb(updates: dict[str, Any] | None) -> None:
    """Another process's additions (see drain), merged into this one's caches."""
    for root, part in (updates or {}).items():
        doc = _caches.setdefault(root, _read_cache(root))
        doc["resolutions"].update(part["resolutions"])
        doc["files"].update(part["files"])
        _dirty.add(root)


def _mark_resolutions_dirty() -> None:
    for root, loader in _loaders.items():
        if root in _caches and loader.new_keys:
            _dirty.add(root)
            loader.new_keys = []


def _finding_to_json(f: Finding) -> dict[str, Any]:
    return {
        "code": f.code,
        "message": f.message,
        "span": f.span.to_json(),
        "related": [[r.span.to_json(), r.message, r.role, r.path] for r in f.related],
        "fixes": [x.to_json() for x in f.fixes],
        "chain": f.chain,
    }


def _finding_from_json(data: dict[str, Any]) -> Finding:
    related = tuple(
        Related(Span.from_json(span), str(message), str(role), None if path is None else str(path))
        for span, message, role, path in data["related"]
    )
    fixes = tuple(FixRef.from_json(x) for x in data["fixes"])
    span = Span.from_json(data["span"])
    return Finding(str(data["code"]), str(data["message"]), span, related, fixes, str(data["chain"]))
