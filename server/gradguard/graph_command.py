"""``gradguard graph FILE[:LINE]``: the autograd graph of one backward call, in a terminal.

The same model the editor's graph view draws (``engine.graph``), told as text (lanes in order, each
node with what built it and what it feeds on, then the passes: what each frees, and for the one
that raises, through what) or as JSON for other tools. Nothing runs; the analysis is the check's.
"""

from __future__ import annotations

import argparse
import json
import os
import re
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:  # the parser is built for every command: the analysis is imported when it runs
    from .api import GraphAnswer
    from .findings import Span

EXIT_OK, EXIT_NONE, EXIT_USAGE = 0, 1, 2
_TARGET = re.compile(r"^(?P<path>.+?)(?::(?P<line>\d+))?$")


def add_parser(commands: Any) -> None:
    graph = commands.add_parser(
        "graph", help="print the autograd graph of a backward call (FILE:LINE, or FILE for the first)"
    )
    graph.add_argument("target", metavar="FILE[:LINE]", help="a Python file, and the line of a backward call")
    graph.add_argument(
        "--format", choices=("text", "json"), default="text", help="output format (default: text)"
    )
    graph.add_argument(
        "--no-follow-imports",
        action="store_true",
        help="analyse the file alone, without the project's own modules it imports",
    )


def run_graph(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    match = _TARGET.match(args.target)
    path, line = (match.group("path"), int(match.group("line") or 1)) if match else (args.target, 1)
    if path.endswith(".ipynb"):
        print("gradguard: error: notebooks: use the editor's graph view (a .py file here)", file=stderr)
        return EXIT_USAGE
    try:
        with open(path, encoding="utf-8") as handle:
            source = handle.read()
    except (OSError, UnicodeDecodeError) as exc:
        print(f"gradguard: error: {path}: {exc}", file=stderr)
        return EXIT_USAGE
    from .api import autograd_graph

    loader = None
    if not args.no_follow_imports:
        from .project import ProjectLoader, project_root

        loader = ProjectLoader(project_root(os.path.dirname(os.path.abspath(path))))
    answer = autograd_graph(source, line, os.path.abspath(path), loader=loader)
    if answer is None:
        print(f"gradguard: {path}: no backward call the analysis ran", file=stderr)
        return EXIT_NONE
    if args.format == "json":
        json.dump(as_json(answer, path), stdout, indent=2)
        stdout.write("\n")
    else:
        stdout.write(as_text(answer, path))
    return EXIT_OK


def _where(span: Span | None) -> dict[str, int] | None:
    # As `check --format json` places findings: 1-based rows and columns.
    if span is None:
        return None
    return {
        "row": span.line,
        "column": span.col + 1,
        "end_row": span.end_line,
        "end_column": span.end_col + 1,
    }


def as_json(answer: GraphAnswer, path: str) -> dict[str, Any]:
    from .engine.graph import graph_fields

    graph, finding = answer.graph, answer.finding
    return {
        "filename": path,
        "backward": {"label": graph.backward_label, "location": _where(graph.backward_span)},
        **graph_fields(graph, lambda span: {"location": _where(span)}),
        "finding": None if finding is None else {"code": finding.code, "message": finding.message},
    }


def as_text(answer: GraphAnswer, path: str) -> str:
    graph, finding = answer.graph, answer.finding
    nodes = {n.id: n for n in graph.nodes}
    inputs: dict[str, list[str]] = {}
    for e in graph.edges:
        inputs.setdefault(e.dst, []).append(e.src)

    def name(nid: str | None) -> str:
        if nid is None or nid not in nodes:
            return "?"
        n = nodes[nid]
        return f"{n.name} = {n.label}" if n.name else n.label

    def where(nid: str) -> str:
        n = nodes[nid]
        return f"line {n.span.line}" if n.span is not None else n.kind

    lines = [f"{path}:{graph.backward_span.line}: {graph.backward_label}"]
    if finding is not None:
        lines.append(f"  {finding.code} {finding.message}")
    for lane in graph.lanes:
        lines.append("")
        lines.append(lane.label)
        for n in graph.nodes:
            if n.lane != lane.id:
                continue
            facts = []
            if n.saves:
                facts.append("saves tensors for backward")
            if n.freed_by is not None:
                facts.append(f"freed by pass {n.freed_by[1:]}")
            feeds = [
                name(src) + ("  <- reaches freed buffers" if graph.reach == (src, n.id) else "")
                for src in inputs.get(n.id, [])
            ]
            text = f"  {where(n.id):<9} {name(n.id)}"
            if facts:
                text += f"  [{'; '.join(facts)}]"
            lines.append(text)
            lines.extend(f"              from {feed}" for feed in feeds)
        for p in graph.passes:
            if p.lane != lane.id:
                continue
            story = [p.label]
            if p.retains:
                story.append("keeps the graph (retain_graph)")
            elif p.frees:
                story.append("frees " + ", ".join(name(nid) for nid in p.frees))
            if p.raises:
                if graph.reach is not None:
                    story.append(
                        f"raises: reaches {name(graph.reach[0])}, freed, through {name(graph.reach[1])}"
                    )
                elif p.reaches is not None:
                    story.append(f"raises: meets {name(p.reaches)}, freed by an earlier pass")
                elif p.changed is not None:
                    story.append(
                        f"raises: {name(p.changed)} saved a tensor that {p.changed_by} changed in place"
                    )
                else:
                    story.append("raises")
            lines.append("  " + "; ".join(story))
    if graph.truncated:
        lines.append("")
        lines.append(f"(the {len(graph.nodes)} nodes nearest the backward; more were left out)")
    return "\n".join(lines) + "\n"
