"""What gradguard says, read as a user reads it: every finding's message and related texts (and the
hover's chain) as rendered on each rule's INVALID examples and on every ``tests/corpus`` script.

Checks, per finding:

1. A text that names two or more lines ("line N", "lines N and M", "line N of cell K") names
   distinct ones: never "between the backward on line 12 and the backward on line 12".
2. No abbreviation (``...``, ``…``) of an expression the code bound to a name: the message says
   `grads`, not `torch.autograd.grad(outputs=d_interp, …`.
3. Every line a text names exists in the source and is not blank.
4. Every template placeholder was filled: no ``{field}`` left, and the message is one of its rule's
   templates with its fields filled in.
5. A line named for what happens there holds that code: "the backward on line N" a backward,
   "the step on line N" a step, "`y` was computed on line N" a `y`.

The blind corpus (``tests/corpus_blind``) is left out on purpose: its cases stay unseen.
"""

from __future__ import annotations

import ast
import re
import string
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

from gradguard.engine import analyze
from gradguard.findings import Finding
from gradguard.rules import RULES, examples

CORPUS = Path(__file__).parent / "corpus"

# "line 12", "line 3 of cell 2", "lines 4 and 9" (each number is one line named).
LINE_REF = re.compile(r"\blines? (\d+)(?: of cell (\d+))?(?: and (\d+))?")
TRUNCATION = ("...", "…")
LEFTOVER = re.compile(r"\{[A-Za-z_]\w*\}")
# Backticked code in a message; the expression after "here: " in a related text.
CODE_SPAN = re.compile(r"`([^`]+)`")
# A line named for what happens there -> what its code must contain (any one of them).
ROLE_LINES: list[tuple[re.Pattern[str], tuple[str, ...]]] = [
    (re.compile(r"\bbackward (?:of `[^`]+` )?on line (\d+)"), ("backward(", "grad(")),
    (re.compile(r"(?:\bstep|step\(\)`) on line (\d+)"), ("step(",)),
    (re.compile(r"\bread on line (\d+)"), (".grad",)),
]
# A name said to be bound on a line: that line must mention it.
NAMED_LINES = [
    re.compile(r"`([^`]+)` was computed on line (\d+)"),  # GG103
    re.compile(r"computed from `([^`]+)` \(line (\d+)\)"),  # GG102
    re.compile(r"\(`([^`]+)`, line (\d+)\)"),  # GG302
]


@dataclass(frozen=True)
class Case:
    id: str
    source: str

    def __repr__(self) -> str:  # keeps pytest's output short
        return f"<{self.id}>"


# Variants neither the examples nor the corpus reach, so that every template is read here too.
EXTRA = {
    # GG201 "flow": the step and the backward sit in a method, and nothing clears `.grad`.
    "GG201-flow": """\
import torch
import torch.nn as nn


class Trainer:
    def __init__(self) -> None:
        self.model = nn.Linear(3, 1)
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.1)

    def train_step(self, x: torch.Tensor, y: torch.Tensor) -> float:
        loss = ((self.model(x) - y) ** 2).mean()
        loss.backward()
        self.optimizer.step()
        return loss.item()


trainer = Trainer()
for _ in range(3):
    trainer.train_step(torch.randn(4, 3), torch.randn(4, 1))
""",
    # GG103 "earlier-loop": a loop that ran once freed the graph the next loop backpropagates.
    "GG103-earlier-loop": """\
import torch
import torch.nn as nn

net = nn.Linear(3, 3)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
h = torch.tanh(net(torch.randn(2, 3)))
for eq in [torch.randn(2, 3)]:
    opt.zero_grad()
    (h * eq).sum().backward()
    opt.step()
for ne in [torch.randn(2, 3) for _ in range(3)]:
    opt.zero_grad()
    (h * ne).sum().backward()
    opt.step()
""",
    # GG301 "record": a dict holding the loss tensor is kept every iteration.
    "GG301-record": """\
import torch
import torch.nn as nn
import torch.nn.functional as F

model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
outputs = []
for _ in range(3):
    x, y = torch.randn(4, 3), torch.randn(4, 1)
    loss = F.mse_loss(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    outputs.append({"loss": loss, "size": x.shape[0]})
""",
}


def _cases() -> list[Case]:
    cases = [
        Case(f"{code}-invalid-{i}", example.source)
        for code in RULES
        for i, example in enumerate(examples(code)[1])
    ]
    cases += [
        Case(f"corpus/{path.name}", path.read_text(encoding="utf-8")) for path in sorted(CORPUS.glob("*.py"))
    ]
    cases += [Case(f"extra/{name}", source) for name, source in EXTRA.items()]
    return cases


CASES = _cases()


@cache
def _findings(case: Case) -> tuple[Finding, ...]:
    return tuple(analyze(case.source, case.id))


def _texts(finding: Finding) -> list[str]:
    """The message, then each related text: what the user reads, one text at a time."""
    return [finding.message, *(r.message for r in finding.related)]


def line_refs(text: str) -> list[tuple[int, int | None]]:
    """Each line a text names, as (line, cell or None), in order."""
    refs: list[tuple[int, int | None]] = []
    for match in LINE_REF.finditer(text):
        cell = int(match.group(2)) if match.group(2) else None
        refs.append((int(match.group(1)), cell))
        if match.group(3):
            refs.append((int(match.group(3)), cell))
    return refs


def repeated_lines(text: str) -> list[tuple[int, int | None]]:
    refs = line_refs(text)
    return sorted({ref for ref in refs if refs.count(ref) > 1})


def abbreviations(text: str, related: bool) -> list[str]:
    """The code in ``text`` that carries a truncation marker."""
    spans = CODE_SPAN.findall(text)
    if related and ": " in text:
        spans.append(text.split(": ", 1)[1])  # related texts show code without backticks
    return [s for s in spans if any(mark in s for mark in TRUNCATION)]


def _pattern(abbreviation: str) -> re.Pattern[str]:
    """``f(...)[0]`` or ``f(a, b…`` as a pattern of the code it may stand for."""
    parts = re.split(r"\.\.\.|…", abbreviation)
    return re.compile(".*".join(re.escape(p) for p in parts), re.DOTALL)


def _one_line(node: ast.AST) -> str:
    return " ".join(ast.unparse(node).split())


def bound_names(source: str, lines: set[int]) -> dict[str, str]:
    """Values assigned to one name on ``lines``: their text -> the name (`x = f(...)`,
    `x = f(...)[0]`, `x, = f(...)`)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    found: dict[str, str] = {}
    for node in ast.walk(tree):
        if not isinstance(node, (ast.Assign, ast.AnnAssign)) or node.value is None:
            continue
        if not any(node.lineno <= line <= (node.end_lineno or node.lineno) for line in lines):
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        if len(targets) != 1:
            continue
        target = targets[0]
        if isinstance(target, (ast.Tuple, ast.List)) and len(target.elts) == 1:
            target = target.elts[0]
        if not isinstance(target, (ast.Name, ast.Attribute)) or ast.unparse(target) == "_":
            continue
        values = [node.value]
        if isinstance(node.value, ast.Subscript) and isinstance(node.value.slice, ast.Constant):
            values.append(node.value.value)  # the one element kept: `grad = torch.autograd.grad(...)[0]`
        for value in values:
            found[_one_line(value)] = ast.unparse(target)
    return found


def source_texts(source: str) -> set[str]:
    """Every expression's one-line text: ``...`` that is really in the code is no abbreviation."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    return {_one_line(n) for n in ast.walk(tree) if isinstance(n, (ast.expr, ast.stmt))}


@cache
def _template_patterns(code: str) -> list[re.Pattern[str]]:
    rule = RULES[code]
    patterns = []
    for template in (rule.message, *rule.variants.values()):
        pieces = []
        for literal, field, _, _ in string.Formatter().parse(template):
            pieces.append(re.escape(literal))
            if field is not None:
                pieces.append(".+?")
        patterns.append(re.compile("".join(pieces), re.DOTALL))
    return patterns


def misplaced_lines(text: str, lines: list[str]) -> list[str]:
    """The lines ``text`` names for a role (a backward, a step, a name's assignment) that do not hold
    that code: a cause that points at the wrong line."""
    wrong = []
    for pattern, needles in ROLE_LINES:
        for match in pattern.finditer(text):
            line = int(match.group(1))
            code = lines[line - 1] if 1 <= line <= len(lines) else ""
            if not any(needle in code for needle in needles):
                wrong.append(f"{match.group(0)!r} but line {line} is {code.strip()!r}")
    for pattern in NAMED_LINES:
        for match in pattern.finditer(text):
            name, line = match.group(1), int(match.group(2))
            code = lines[line - 1] if 1 <= line <= len(lines) else ""
            if not any(mark in name for mark in TRUNCATION) and name not in code:
                wrong.append(f"{match.group(0)!r} but line {line} is {code.strip()!r}")
    return wrong


def problems(case: Case) -> list[str]:
    """Everything wrong with what the findings of ``case`` say, one line each."""
    lines = case.source.split("\n")
    found: list[str] = []
    for finding in _findings(case):
        where = f"{finding.code} at line {finding.span.line}"
        texts = _texts(finding)
        for index, text in enumerate(texts):
            # (1) two mentions of one line, as if two places
            repeated = repeated_lines(text)
            if repeated:
                found.append(f"{where}: names line {repeated[0][0]} twice: {text!r}")
            # (3) every named line is real code
            for line, cell in line_refs(text):
                if cell is None and not (1 <= line <= len(lines) and lines[line - 1].strip()):
                    found.append(f"{where}: names line {line}, which is blank or missing: {text!r}")
            # (5) a line named for a role holds that code
            for wrong in misplaced_lines(text, lines):
                found.append(f"{where}: {wrong}")
            # (4) no placeholder left unfilled
            if LEFTOVER.search(text):
                found.append(f"{where}: unfilled placeholder in {text!r}")
            # (2) no abbreviation of a value the code named
            for short in abbreviations(text, related=index > 0):
                if short in source_texts(case.source):
                    continue  # the code itself says `...`
                nearby = {finding.span.line, *(r.span.line for r in finding.related)}
                nearby |= {line for line, cell in line_refs(text) if cell is None}
                pattern = _pattern(short)
                for value, name in bound_names(case.source, nearby).items():
                    if pattern.fullmatch(value):
                        found.append(f"{where}: says `{short}` for a value the code calls `{name}`: {text!r}")
        # (4) the message is its rule's template, filled in (a failed format leaves the template)
        if finding.code in RULES and not any(
            p.fullmatch(finding.message) for p in _template_patterns(finding.code)
        ):
            found.append(f"{where}: message matches none of the rule's templates: {finding.message!r}")
        # The hover's chain: its lines exist, and no step of the story repeats the one before it.
        if finding.chain:
            steps = finding.chain.split(" <- ")
            for before, after in zip(steps, steps[1:], strict=False):
                if before == after:
                    found.append(f"{where}: chain repeats {before!r}: {finding.chain!r}")
            for line, _ in line_refs(finding.chain):
                if not (1 <= line <= len(lines) and lines[line - 1].strip()):
                    found.append(f"{where}: chain names line {line}, blank or missing: {finding.chain!r}")
    return found


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_messages_read_right(case: Case) -> None:
    assert problems(case) == []


# Templates a Python file cannot produce: (code, variant) -> why.
UNRENDERABLE = {("GG000", "cell"): "one notebook cell that does not parse"}


def test_the_cases_cover_every_template() -> None:
    """Every message and variant is rendered somewhere above, so none escapes the checks."""
    rendered = [f for case in CASES for f in _findings(case)]
    missing = []
    for code, rule in RULES.items():
        messages = [f.message for f in rendered if f.code == code]
        for key, pattern in zip(["", *rule.variants], _template_patterns(code), strict=True):
            if (code, key) not in UNRENDERABLE and not any(pattern.fullmatch(m) for m in messages):
                missing.append(f"{code} {key or 'message'}")
    assert missing == []


# -- the checks themselves catch what they are for ---------------------------------------------------


def test_line_refs_read_every_form() -> None:
    text = "on line 3, line 4 of cell 2, and lines 7 and 9"
    assert line_refs(text) == [(3, None), (4, 2), (7, None), (9, None)]
    assert repeated_lines("between the backward on line 12 and the backward on line 12") == [(12, None)]
    assert repeated_lines("built on line 12, freed on line 12 of cell 3") == []
    assert repeated_lines("lines 5 and 5") == [(5, None)]


def test_a_line_named_for_the_wrong_code_is_caught() -> None:
    lines = ["y = t @ a", "for _ in range(2):", "    loss.backward()", "    opt.step()"]
    right = "`y` was computed on line 1, before the loop; the backward on line 3 frees it; the step on line 4"
    assert misplaced_lines(right, lines) == []
    assert len(misplaced_lines("`x` was computed on line 1; the backward on line 4", lines)) == 2
    assert len(misplaced_lines("`opt.step()` on line 3", lines)) == 1


def test_abbreviation_of_a_named_value_is_caught() -> None:
    call = "torch.autograd.grad(outputs=d, inputs=x, grad_outputs=ones)"
    named = bound_names(f"import torch\ngrads = {call}[0]\n", {2})
    assert named == {f"{call}[0]": "grads", call: "grads"}
    for text, related in [
        ("`torch.autograd.grad(outputs=d, inputs=x, grad_o…` comes from", False),
        ("graph built here: torch.autograd.grad(...)", True),
    ]:
        (short,) = abbreviations(text, related)
        assert any(_pattern(short).fullmatch(value) for value in named)
    assert abbreviations("`x[..., 0]` and `loss`", related=False) == ["x[..., 0]"]
    assert "x[..., 0]" in source_texts("y = x[..., 0]\n")  # in the code itself: no abbreviation
