"""The package's layering: no import circles, and rules that hold their own checks.

Imports are read from the source (module level and inside functions alike; ``if TYPE_CHECKING:``
blocks excluded, since they never run). A package stands for its ``__init__`` module.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "server" / "gradguard"


def _module_name(path: Path) -> str:
    parts = ["gradguard", *path.relative_to(PACKAGE).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(name: str, path: Path) -> set[str]:
    """The modules of this package that ``name`` imports when it runs."""
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found: set[str] = set()

    def visit(nodes: list[ast.stmt]) -> None:
        for node in nodes:
            if isinstance(node, ast.If) and _is_type_checking(node):
                visit(node.orelse)
                continue
            if isinstance(node, ast.Import):
                found.update(a.name for a in node.names if a.name.startswith("gradguard"))
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")
                    base = base[: len(base) - node.level + 1]
                    mod = ".".join([*base, node.module] if node.module else base)
                else:
                    mod = node.module or ""
                if not mod.startswith("gradguard"):
                    continue
                for alias in node.names:
                    sub = f"{mod}.{alias.name}"
                    found.add(sub if sub in MODULES else mod)
            for field in ("body", "orelse", "finalbody", "handlers"):
                inner = getattr(node, field, None)
                if isinstance(inner, list):
                    visit(
                        [n for n in inner if isinstance(n, ast.stmt)]
                        + [s for h in inner if isinstance(h, ast.ExceptHandler) for s in h.body]
                    )

    visit(ast.parse(path.read_text(encoding="utf-8")).body)
    found.discard(name)
    return {m for m in found if m in MODULES}


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def _cycle_from(start: str) -> list[str] | None:
    stack: list[tuple[str, list[str]]] = [(start, [start])]
    seen: set[str] = set()
    while stack:
        node, trail = stack.pop()
        for nxt in GRAPH[node]:
            if nxt == start:
                return [*trail, start]
            if nxt not in seen:
                seen.add(nxt)
                stack.append((nxt, [*trail, nxt]))
    return None


@pytest.mark.parametrize(
    "name", sorted(n for n in MODULES if n.startswith(("gradguard.engine", "gradguard.rules")))
)
def test_no_import_circle(name: str) -> None:
    cycle = _cycle_from(name)
    assert cycle is None, " -> ".join(cycle or [])


def test_the_graph_sees_imports() -> None:
    """The test above can fail: the reader finds the engine's known edges."""
    assert "gradguard.rules" in GRAPH["gradguard.engine.report"]
    assert "gradguard.observations" in GRAPH["gradguard.rules.gg109_nonscalar_backward"]
    assert "gradguard.engine.evaluate" in GRAPH["gradguard.engine.interp"]


def test_rules_and_observations_never_import_the_engine() -> None:
    """Dependencies go one way: engine -> rules -> observations."""
    for name, deps in GRAPH.items():
        if name.startswith("gradguard.rules") or name == "gradguard.observations":
            assert not {d for d in deps if d.startswith("gradguard.engine")}, name


def test_each_check_is_declared_by_its_rule_module() -> None:
    """A rule's checks live in its own module and judge observation types."""
    from gradguard import observations
    from gradguard.rules import RULES, checks, rule_module

    table = checks()
    assert table, "no rule declares a check"
    declared = 0
    for code in RULES:
        for kind, check in getattr(rule_module(code), "CHECKS", {}).items():
            assert getattr(observations, kind.__name__) is kind
            assert check in table[kind]
            assert check.__module__ == rule_module(code).__name__
            declared += 1
    assert declared == sum(len(v) for v in table.values())


def _rule_codes_reported(tree: ast.AST) -> list[str]:
    """Rule codes a module reports or builds fixes for itself: `x.add("GG101", ...)`,
    `x.fix("GG101", ...)` or `Finding("GG101", ...)` with the code written out."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        code = node.args[0]
        if not (isinstance(code, ast.Constant) and isinstance(code.value, str) and code.value[:2] == "GG"):
            continue
        func = node.func
        if (isinstance(func, ast.Attribute) and func.attr in ("add", "fix")) or (
            isinstance(func, ast.Name) and func.id == "Finding"
        ):
            found.append(f"{code.value} on line {node.lineno}")
    return found


def test_the_engine_reports_nothing_itself() -> None:
    """Findings and their fixes are made by the rules' checks; the engine only publishes what it
    observes (a rule's words, squiggle and fixes live beside its docs and examples)."""
    for name, path in MODULES.items():
        if name.startswith("gradguard.engine"):
            assert _rule_codes_reported(ast.parse(path.read_text())) == [], name


def test_the_reporting_reader_finds_reports() -> None:
    """The test above can fail: a rule module reports its own code."""
    path = MODULES["gradguard.rules.gg301_accumulated_graph"]
    assert any(c.startswith("GG301") for c in _rule_codes_reported(ast.parse(path.read_text())))
