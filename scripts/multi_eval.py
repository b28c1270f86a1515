"""Report gradguard's recall and precision on the multi-file corpus (tests/corpus_multi).

Each case is a small project (a folder of 2-6 files, entry ``main.py``) written by people who had
not read the engine, from a real public report where the bug spans files. Labels, in any file:
``# expect: GG104`` on the statement the user must change, ``# also: GG104`` on other lines of the
same bug (the call into the other file, the failing backward); ``# raises: ...`` in main.py's
header when the project raises. Every file of a project is checked, as ``gradguard check`` on the
project folder does, once without and once with cross-file analysis (same run, same engine).

A finding matches a bug of its code when its place, or the place in another file it says its
cause is in, is the bug's ``expect`` line or one of that code's ``also`` lines. A project is
detected when every labelled bug in it is; any finding on a correct project flags it. Parts:
``dev`` (looked at while developing) and ``holdout`` (never looked at; split by sha1 of the
project name, a third). Only ``dev`` lists its misses. A report, not a gate (exit status 0).

    python scripts/multi_eval.py [--part dev|holdout|all] [--list]
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "server"))

from gradguard import api  # noqa: E402
from gradguard.findings import Finding  # noqa: E402
from gradguard.project import ProjectLoader  # noqa: E402

CORPUS = ROOT / "tests" / "corpus_multi"
PARTS = ("dev", "holdout")
LABEL_RE = re.compile(r"#\s*(expect|also):\s*(GG\d{3}(?:\s*,\s*GG\d{3})*)\s*$")
RAISES_RE = re.compile(r"^#\s*raises:\s*(.+?)\s*$", re.MULTILINE)

Place = tuple[str, int]  # (absolute path, line)


def labels(project: Path) -> tuple[list[tuple[str, Place]], dict[str, set[Place]]]:
    bugs: list[tuple[str, Place]] = []
    also: dict[str, set[Place]] = defaultdict(set)
    for path in sorted(project.rglob("*.py")):
        for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            m = LABEL_RE.search(line)
            if not m:
                continue
            for code in (c.strip() for c in m.group(2).split(",")):
                place = (str(path.resolve()), lineno)
                if m.group(1) == "expect":
                    bugs.append((code, place))
                else:
                    also[code].add(place)
    return bugs, also


def places(path: Path, finding: Finding) -> set[Place]:
    """Where a finding is, and where it says its cause is (a related place in another file)."""
    out = {(str(path.resolve()), finding.span.line)}
    out.update((r.path, r.span.line) for r in finding.related if r.path is not None and r.role == "note")
    return out


def check(project: Path, cross: bool) -> list[tuple[Path, Finding]]:
    loader = ProjectLoader(str(project)) if cross else None
    out: list[tuple[Path, Finding]] = []
    for path in sorted(project.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        out.extend((path, f) for f in api.check_source(source, str(path), loader=loader) if f.code != "GG000")
    return out


def score(project: Path, found: list[tuple[Path, Finding]]) -> tuple[bool, list[str]]:
    """(detected, missed bug descriptions); correct projects: (flagged, findings)."""
    bugs, also = labels(project)
    if not bugs:
        return bool(found), [f"{p.relative_to(project)}:{f.span.line} {f.code}" for p, f in found]
    missed = []
    for code, place in bugs:
        wanted = {place} | also.get(code, set())
        if not any(f.code == code and places(p, f) & wanted for p, f in found):
            missed.append(f"{code} {Path(place[0]).relative_to(project)}:{place[1]}")
    return not missed, missed


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--part", default="all", choices=[*PARTS, "all"])
    parser.add_argument("--list", action="store_true", help="list the dev part's misses and flags")
    args = parser.parse_args()
    parts = PARTS if args.part == "all" else (args.part,)
    for part in parts:
        folder = CORPUS / part
        projects = sorted(p for p in folder.iterdir() if p.is_dir()) if folder.is_dir() else []
        start = time.perf_counter()
        tally: dict[str, dict[str, list[int]]] = {
            "per-file": defaultdict(lambda: [0, 0]),
            "cross-file": defaultdict(lambda: [0, 0]),
        }
        notes: list[str] = []
        for project in projects:
            entry = project / "main.py"
            header = entry.read_text(encoding="utf-8") if entry.exists() else ""
            bugs, _ = labels(project)
            kind = "correct" if not bugs else "raising" if RAISES_RE.search(header[:2000]) else "silent"
            for mode in ("per-file", "cross-file"):
                hit, detail = score(project, check(project, mode == "cross-file"))
                cell = tally[mode][kind]
                cell[0] += hit
                cell[1] += 1
                if args.list and part == "dev" and mode == "cross-file" and (hit == (kind == "correct")):
                    notes.append(f"  {'FLAGGED' if kind == 'correct' else 'MISSED'} {project.name}: {detail}")
        print(f"== {part}: {len(projects)} projects ({time.perf_counter() - start:.2f}s)")
        for mode in ("per-file", "cross-file"):
            row = tally[mode]
            parts_text = []
            for kind in ("raising", "silent"):
                hit, total = row[kind]
                parts_text.append(f"{kind} {hit}/{total}")
            buggy_hit = row["raising"][0] + row["silent"][0]
            buggy = row["raising"][1] + row["silent"][1]
            flagged, correct = row["correct"]
            parts_text.append(f"buggy {buggy_hit}/{buggy} = {buggy_hit / buggy if buggy else 0:.2f}")
            parts_text.append(f"correct flagged {flagged}/{correct}")
            print(f"  {mode:10s}: " + ", ".join(parts_text))
        for note in notes:
            print(note)
    return 0


if __name__ == "__main__":
    sys.exit(main())
