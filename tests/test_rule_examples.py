"""Every rule's embedded examples, checked three ways.

(a) Under real torch: an INVALID example raises exactly the error it claims
    (or, for silent rules, runs clean and its ``effect`` is true); a VALID
    example runs clean.
(b) Under gradguard: the INVALID example gets a finding of its rule on its
    ``line``; a VALID example gets none of that rule.
(c) After the preferred fix: no finding of the rule, and the code runs clean
    (its ``effect`` now false).

All torch runs happen in child processes, batched: one for the examples and one
for the fixed examples (see ``torch_runner``), so the file takes seconds.
"""

from __future__ import annotations

import string
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT / "server") not in sys.path:  # until the package is installed
    sys.path.insert(0, str(ROOT / "server"))

from gradguard.rules import RULES, docs_url, examples, rule_module, severity_default  # noqa: E402
from gradguard.rules.base import Invalid, Valid  # noqa: E402
from torch_runner import Result, Snippet, run_snippets  # noqa: E402


@dataclass(frozen=True, repr=False)
class Case:
    code: str
    kind: str  # "valid" or "invalid"
    index: int
    example: Valid | Invalid

    @property
    def id(self) -> str:
        return f"{self.code}-{self.kind}-{self.index}"

    def __repr__(self) -> str:  # keeps pytest's assertion output short
        return f"<{self.id}>"

    @property
    def effects(self) -> tuple[str, ...]:
        if isinstance(self.example, Invalid) and self.example.effect:
            return (self.example.effect,)
        return ()


def _cases() -> list[Case]:
    cases: list[Case] = []
    for code in RULES:
        valid, invalid = examples(code)
        cases += [Case(code, "valid", i, ex) for i, ex in enumerate(valid)]
        cases += [Case(code, "invalid", i, ex) for i, ex in enumerate(invalid)]
    return cases


CASES = _cases()
INVALID_CASES = [c for c in CASES if c.kind == "invalid"]


def _params(cases: list[Case]) -> list[object]:
    return [pytest.param(c, id=c.id) for c in cases]


# --- (a) the examples under torch -------------------------------------------------------------


@pytest.fixture(scope="session")
def example_results() -> dict[str, Result]:
    snippets = [Snippet(c.example.source, c.effects, f"<{c.id}>") for c in CASES]
    return {c.id: r for c, r in zip(CASES, run_snippets(snippets), strict=True)}


def _describe(result: Result) -> str:
    effects = f"effects={result.effects} effect_errors={result.effect_errors}"
    return f"error={result.error!r} {effects}\n{result.stdout}"


@pytest.mark.parametrize("case", _params(CASES))
def test_example_under_torch(case: Case, example_results: dict[str, Result]) -> None:
    result = example_results[case.id]
    example = case.example
    if isinstance(example, Valid):
        assert result.error is None, f"valid example raised: {_describe(result)}"
        return
    if example.error is not None:
        assert result.error is not None, f"expected {example.error!r}, ran clean: {_describe(result)}"
        assert result.error.startswith(example.error), f"expected {example.error!r}: {_describe(result)}"
    else:
        assert result.error is None, f"silent example raised: {_describe(result)}"
        assert example.effect is not None
        assert result.effects.get(example.effect) is True, f"effect not observed: {_describe(result)}"


# --- (b) the examples under gradguard -------------------------------------------------------


@pytest.mark.parametrize("case", _params(CASES))
def test_example_findings(case: Case) -> None:
    from gradguard.engine import analyze

    findings = [f for f in analyze(case.example.source, f"{case.id}.py") if f.code == case.code]
    if isinstance(case.example, Valid):
        assert not findings, f"false positive on a valid example: {findings}"
    else:
        lines = [f.span.line for f in findings]
        expected = case.example.line
        assert expected in lines, f"expected {case.code} on line {expected}, got lines {lines}"


# --- (c) the preferred fix --------------------------------------------------------------------


@dataclass(frozen=True)
class Fixed:
    source: str | None  # None when no fix could be applied; ``problem`` says why
    problem: str = ""


def _apply_preferred_fix(case: Case) -> Fixed:
    try:
        from gradguard.engine import analyze
        from gradguard.fixes import apply_edits, compute
    except ImportError as e:
        return Fixed(None, f"cannot import the engine or fixes: {e}")
    assert isinstance(case.example, Invalid)
    source = case.example.source
    findings = [
        f
        for f in analyze(source, f"{case.id}.py")
        if f.code == case.code and f.span.line == case.example.line
    ]
    if not findings:
        return Fixed(None, f"no {case.code} finding on line {case.example.line}")
    if not findings[0].fixes:
        return Fixed(None, f"the {case.code} finding offers no fix")
    fix = compute(source, findings[0].fixes[0])
    if fix is None:
        return Fixed(None, f"fix {findings[0].fixes[0].kind!r} did not apply")
    return Fixed(apply_edits(source, list(fix.edits)))


@pytest.fixture(scope="session")
def fixed_examples() -> dict[str, tuple[Fixed, Result | None]]:
    fixed = {c.id: _apply_preferred_fix(c) for c in INVALID_CASES}
    runnable = [c for c in INVALID_CASES if fixed[c.id].source is not None]
    snippets = [Snippet(fixed[c.id].source or "", c.effects, f"<{c.id}-fixed>") for c in runnable]
    results = dict(zip((c.id for c in runnable), run_snippets(snippets), strict=True))
    return {c.id: (fixed[c.id], results.get(c.id)) for c in INVALID_CASES}


@pytest.mark.parametrize("case", _params(INVALID_CASES))
def test_preferred_fix(case: Case, fixed_examples: dict[str, tuple[Fixed, Result | None]]) -> None:
    from gradguard.engine import analyze

    fixed, result = fixed_examples[case.id]
    problem = fixed.problem
    if RULES[case.code].family == "syntax":
        # Code that does not parse: gradguard cannot know what it meant, so it offers no fix.
        assert fixed.source is None and problem == f"the {case.code} finding offers no fix", problem
        return
    assert fixed.source is not None, problem
    remaining = [f for f in analyze(fixed.source, f"{case.id}-fixed.py") if f.code == case.code]
    assert not remaining, f"still reported after the fix:\n{fixed.source}\n{remaining}"
    assert result is not None
    assert result.error is None, f"fixed code raises:\n{fixed.source}\n{_describe(result)}"
    for expr in case.effects:
        assert result.effects.get(expr) is False, (
            f"effect persists after the fix:\n{fixed.source}\n{_describe(result)}"
        )


# --- the rule modules themselves ----------------------------------------------------------------

SECTIONS = ("## What it does", "## Why is this bad", "## Example", "## Fix")

# Message fields the engine passes, by rule and template ("" is the main message).
DOCUMENTED_FIELDS: dict[str, dict[str, set[str]]] = {
    "GG000": {"": {"kind", "reason", "python"}, "cell": {"kind", "reason", "python"}},
    "GG110": {"": {"name"}, "list": {"name"}},
    "GG111": {
        "": {"optimizer", "first_line", "second_line"},
        "built-before": {"optimizer", "loss", "saved_line", "second_line"},
        "other-optimizer": {"optimizer", "first_line", "second_line"},
    },
    "GG112": {"": {"name"}, "elsewhere": {"name"}},
    "GG201": {
        "": {"optimizer", "step_line"},
        "flow": {"optimizer", "step_line"},
        "misplaced": {"optimizer", "backward_line", "step_line"},
        "input": {"name", "read_line"},
        "discards": {"optimizer", "backward_line"},
        "before-loop": {"optimizer", "clear_line", "step_line"},
    },
    "GG202": {"": {"name", "loss"}, "raises": {"name", "loss"}},
    "GG203": {"": {"name", "saved_by", "saved_line"}, "made-it": {"name", "saved_line"}},
    "GG301": {"": {"acc", "value", "suggest"}, "record": {"acc", "value"}},
    "GG302": {"": {"masks"}},
}

DOCUMENTED_FIXES: dict[str, set[str]] = {
    "GG110": {"detach-numpy", "pass-array"},
    "GG111": {"step-after-backward", "recompute-after-step"},
    "GG112": {"assign-detach"},
    "GG201": {
        "zero-grad-before-backward",
        "move-zero-grad",
        "clear-input-grad",
        "zero-after-step",
        "zero-grad-into-loop",
    },
    "GG202": {"create-graph"},
    "GG203": {"out-of-place"},
    "GG301": {"use-detach", "use-item"},
    "GG302": {"real-fix", "drop-retain-graph"},
}


def _fields(template: str) -> set[str]:
    names = {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}
    for name in names:
        # Plain keyword fields only: the engine formats with keyword arguments.
        assert name.isidentifier(), f"field {{{name}}} in {template!r} is not a plain name"
    return names


@pytest.mark.parametrize("code", list(RULES))
def test_rule_module_shape(code: str) -> None:
    rule = RULES[code]
    module = rule_module(code)
    doc = module.__doc__ or ""
    for section in SECTIONS:
        assert section in doc, f"{module.__name__} docstring lacks {section!r}"
    assert rule.name == rule.name.lower() and " " not in rule.name and "_" not in rule.name, (
        "name is not kebab-case"
    )
    assert rule.summary, "a rule needs a summary"
    assert rule.fixes or rule.family == "syntax", "a rule needs at least one fix"
    valid, invalid = examples(code)
    assert len(valid) >= 2, "at least 2 VALID examples"
    assert len(invalid) >= 2, "at least 2 INVALID examples"
    for example in invalid:
        assert (example.error is None) != (example.effect is None), "exactly one of error / effect"
        assert 1 <= example.line <= len(example.source.splitlines()), "line outside the example"
        assert example.source.splitlines()[example.line - 1].strip(), "the squiggle line is blank"
    templates = {"": rule.message, **rule.variants}
    documented = DOCUMENTED_FIELDS.get(code)
    for key, template in templates.items():
        fields = _fields(template)
        template.format(**{name: "x" for name in fields})
        if documented is not None:
            assert key in documented, f"undocumented variant {key!r}"
            assert fields <= documented[key], (
                f"{key or 'message'} uses undocumented fields {fields - documented[key]}"
            )
    if code in DOCUMENTED_FIXES:
        assert set(rule.fixes) == DOCUMENTED_FIXES[code]
    # Every fix says whether gradguard may apply it unasked, and why.
    assert list(rule.safety) == list(rule.fixes), "safety must classify every fix, in rank order"
    for fix_id, (applicability, why) in rule.safety.items():
        assert applicability in ("safe", "unsafe", "display"), f"{fix_id}: {applicability!r}"
        assert why.strip().endswith("."), f"{fix_id}: say why it is {applicability}, in a sentence"


def test_registry() -> None:
    assert list(RULES) == sorted(RULES)
    assert all(code == rule.code for code, rule in RULES.items())
    assert docs_url("GG103") == "https://gradguard.dev/rules/GG103"
    assert [severity_default(c) for c in ("GG000", "GG101", "GG201", "GG301")] == [
        "error",
        "error",
        "warning",
        "information",
    ]
    assert len({rule.name for rule in RULES.values()}) == len(RULES), "rule names must be unique"


def test_generated_docs_are_current() -> None:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "gen_docs.py"), "--check"], capture_output=True, text=True
    )
    assert proc.returncode == 0, f"run `python scripts/gen_docs.py`:\n{proc.stdout}{proc.stderr}"


def test_torch_runner_isolates_snippets() -> None:
    results = run_snippets(
        [
            Snippet("import torch\nleak = 1\nprint(torch.rand(1).item())", ("leak == 1",)),
            Snippet("import torch\nassert 'leak' not in globals()\nprint(torch.rand(1).item(), __name__)"),
            Snippet("while True:\n    pass"),
            Snippet("raise ValueError('boom')", ("undefined_name",)),
        ],
        time_limit=1.0,
    )
    assert results[0].error is None and results[0].effects == {"leak == 1": True}
    assert results[1].error is None, results[1].error
    # Fresh namespace, run as __main__, reseeded before each snippet.
    assert results[1].stdout == results[0].stdout.strip() + " __main__\n"
    assert results[2].timed_out and results[2].error is not None
    assert results[3].error == "ValueError: boom"
    assert results[3].effects == {"undefined_name": None}
    assert "NameError" in results[3].effect_errors["undefined_name"]
