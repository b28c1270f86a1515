"""Generate the rule documentation and example files from the rule modules.

Writes ``docs/rules/GGnnn.md`` for every rule, ``docs/rules/index.md`` (a table
of all rules) and ``examples/<rule module>.py`` (each rule's first INVALID
example, with a header line saying what gradguard reports there).

    python scripts/gen_docs.py           # write the files
    python scripts/gen_docs.py --check   # exit 1 if any file on disk differs
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT / "server") not in sys.path:  # until the package is installed
    sys.path.insert(0, str(ROOT / "server"))

from gradguard.rules import RULES, examples, render_doc, rule_module, severity_default  # noqa: E402

DOCS = ROOT / "docs" / "rules"
EXAMPLES = ROOT / "examples"
# Only files matching these are ours to write or delete.
_DOC_FILE = re.compile(r"GG\d{3}\.md")
_EXAMPLE_FILE = re.compile(r"gg\d{3}_\w+\.py")


def _index() -> str:
    rows = ["# gradguard rules", "", "| Code | Name | Default severity | Summary |", "|---|---|---|---|"]
    for code, rule in RULES.items():
        summary = rule.summary.replace("|", "\\|")
        rows.append(f"| [{code}]({code}.md) | {rule.name} | {severity_default(code)} | {summary} |")
    return "\n".join(rows) + "\n"


def _example(code: str) -> str | None:
    _, invalid = examples(code)
    if not invalid:
        return None
    first = invalid[0]
    # The header shifts the example down one line.
    header = f"# gradguard reports {code} ({RULES[code].name}) on line {first.line + 1}.\n"
    return header + first.source


def expected_files() -> dict[Path, str]:
    files: dict[Path, str] = {DOCS / "index.md": _index()}
    for code in RULES:
        files[DOCS / f"{code}.md"] = render_doc(code)
        text = _example(code)
        if text is not None:
            # Named like the rule's module: examples/gg103_graph_before_loop.py.
            files[EXAMPLES / f"{rule_module(code).__name__.rsplit('.', 1)[-1]}.py"] = text
    return files


def _stale(files: dict[Path, str]) -> list[Path]:
    """Generated-looking files on disk that no rule produces any more."""
    stale: list[Path] = []
    for folder, pattern in ((DOCS, _DOC_FILE), (EXAMPLES, _EXAMPLE_FILE)):
        if folder.is_dir():
            stale += [p for p in sorted(folder.iterdir()) if pattern.fullmatch(p.name) and p not in files]
    return stale


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="exit 1 if the files on disk are out of date")
    args = parser.parse_args(argv)
    files = expected_files()
    changed = [p for p, text in files.items() if not p.is_file() or p.read_text(encoding="utf-8") != text]
    stale = _stale(files)
    if args.check:
        for path in changed:
            print(f"out of date: {path.relative_to(ROOT)}")
        for path in stale:
            print(f"stale: {path.relative_to(ROOT)}")
        return 1 if changed or stale else 0
    for path in changed:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(files[path], encoding="utf-8")
        print(f"wrote {path.relative_to(ROOT)}")
    for path in stale:
        # Never delete: the folder is shared, and a human decides what goes.
        print(f"stale, not removed: {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
