"""Incremental analysis (engine.incremental): the tree made from the last one is the whole parse's,
replayed units give exactly the findings of a whole analysis, and an edit reruns only what it can
change."""

from __future__ import annotations

import ast
import random
import sys
from pathlib import Path

import pytest

from gradguard import engine
from gradguard.engine import incremental
from gradguard.rules import RULES, examples

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "bench"))
from gen_training_script import generate  # noqa: E402
from incremental_check import check, edit, tree_dump  # noqa: E402


def _spliced(old: str, new: str) -> incremental.Splice | None:
    return incremental.splice(old, ast.parse(old), new)


SCRIPT = """\
import torch

lr = 0.1
model = torch.nn.Linear(2, 2)


def train(x):
    out = model(x)
    loss = out.sum()
    loss.backward()
    return loss


@torch.no_grad()
def evaluate(x):
    return model(x).detach()


class Runner:
    def step(self, x):
        loss = train(x) * lr
        return loss.detach()
"""


def test_an_unchanged_text_keeps_every_statement() -> None:
    tree = ast.parse(SCRIPT)
    spliced = incremental.splice(SCRIPT, tree, SCRIPT)
    assert spliced is not None and spliced.tree is tree and not spliced.replaced


@pytest.mark.parametrize(
    "old, new",
    [
        ("    loss = out.sum()\n", "    loss = out.mean()\n"),  # inside a function
        ("    return loss\n", "    return loss\n    print(1)\n"),  # a line more: the rest moves
        ("    return loss\n\n", "    return loss\n    x = 1\n"),  # an indented line joins `train`
        ("    return loss\n", "x = 1\n"),  # a dedented line ends `train` early
        ("@torch.no_grad()\n", "@torch.enable_grad()\n"),  # a decorator
        ("lr = 0.1\n", "lr = 0.1; lr2 = 0.2\n"),  # two statements on a line
        ("import torch\n", "# a comment\nimport torch\n"),  # before the first statement
        ("        return loss.detach()\n", "        return loss.detach()  # last line\n"),
    ],
)
def test_the_spliced_tree_is_the_whole_parse(old: str, new: str) -> None:
    assert old in SCRIPT
    text = SCRIPT.replace(old, new)
    spliced = _spliced(SCRIPT, text)
    assert spliced is not None
    assert tree_dump(spliced.tree) == tree_dump(ast.parse(text))


def test_statements_away_from_an_edit_are_the_old_ones() -> None:
    text = SCRIPT.replace("loss = out.sum()", "loss = out.mean()")
    tree = ast.parse(SCRIPT)
    spliced = incremental.splice(SCRIPT, tree, text)
    assert spliced is not None
    train = next(s for s in tree.body if isinstance(s, ast.FunctionDef) and s.name == "train")
    assert spliced.replaced == [train]
    assert all(a is b for a, b in zip(tree.body, spliced.tree.body, strict=True) if a is not train)


def test_a_moved_line_reparses_what_follows_it() -> None:
    text = SCRIPT.replace("lr = 0.1\n", "lr = 0.1\n\n")
    tree = ast.parse(SCRIPT)
    spliced = incremental.splice(SCRIPT, tree, text)
    assert spliced is not None
    assert spliced.tree.body[0] is tree.body[0]
    assert all(id(s) not in spliced.kept for s in spliced.tree.body[2:])


@pytest.mark.parametrize("new", ["    loss = out.sum(\n", '    loss = """\n', "    loss = out.sum() \\\n"])
def test_an_edit_that_does_not_parse_alone_is_parsed_whole(new: str) -> None:
    assert _spliced(SCRIPT, SCRIPT.replace("    loss = out.sum()\n", new)) is None


def test_line_ends_are_the_tokenizers() -> None:
    old = "import torch\r\nx = 1\x0c\r\ny = torch.ones(1)\ry = y + 1\n"
    new = old.replace("x = 1", "x = 2")
    spliced = _spliced(old, new)
    assert spliced is not None and tree_dump(spliced.tree) == tree_dump(ast.parse(new))


def test_random_edits_splice_as_the_whole_parse() -> None:
    rng = random.Random(7)
    sources = [ex.source for code in RULES for group in examples(code) for ex in group]
    checked = 0
    for source in sources:
        text = source
        for _ in range(6):
            new = edit(text, rng)
            try:
                tree = ast.parse(text)
            except SyntaxError:
                text = new
                continue  # the engine keeps no memo of a text that does not parse
            spliced = incremental.splice(text, tree, new)
            if spliced is not None:
                assert tree_dump(spliced.tree) == tree_dump(ast.parse(new))
                checked += 1
            text = new
    assert checked > 300


def test_changed_names_follow_module_code() -> None:
    text = "lr = 0.1\nmodel = 1\nopt = make(model, lr)\nsteps = 3\nx = len(steps)\ndef f():\n    return opt\n"
    body = ast.parse(text).body
    old_lr = ast.parse("lr = 0.2").body
    kept = frozenset(id(s) for s in body[1:])
    dirty = incremental.changed_names([old_lr[0], *body[1:]], kept, [body[0]], {})
    # `opt` is made from `lr`, and `model` may be changed by the call; `steps` and `f` are not touched,
    # and `make` and `len` are bound by no statement (builtins or unknown: nothing changes them).
    assert dirty == {"lr", "opt", "model"}


def test_a_changed_function_dirties_only_its_name() -> None:
    body = ast.parse("def f():\n    return model\nmodel = 1\ng = f\n").body
    dirty = incremental.changed_names(body, frozenset(id(s) for s in body[1:]), [body[0]], {})
    assert dirty == {"f", "g"}


def _memo(source: str) -> incremental.Memo:
    memo = engine.inspect(source).memo
    assert memo is not None
    return memo


def test_an_edit_in_one_function_reruns_its_unit_and_its_callers() -> None:
    memo = _memo(SCRIPT)
    units = len(memo.units)
    assert units == 3  # train, evaluate, Runner
    after = engine.inspect(SCRIPT.replace("loss = out.sum()", "loss = out.mean()"), memo=memo)
    assert after.memo is not None
    assert after.memo.replayed == 1  # evaluate; Runner.step calls train: it runs again
    assert after.findings == engine.inspect(SCRIPT.replace("loss = out.sum()", "loss = out.mean()")).findings


def test_module_code_the_functions_read_reruns_them() -> None:
    memo = _memo(SCRIPT)
    after = engine.inspect(SCRIPT.replace("lr = 0.1", "lr = 0.2"), memo=memo)
    assert after.memo is not None and after.memo.replayed == 2  # only Runner.step reads `lr`
    after = engine.inspect(SCRIPT.replace("lr = 0.1", "lr = 0.1\nunused = 2"), memo=memo)
    assert after.memo is not None and after.memo.replayed == 3  # moved down a line, all replayed


def test_findings_after_an_added_line_move_with_their_story() -> None:
    buggy = SCRIPT.replace("    loss.backward()\n", "    loss.backward()\n    loss.backward()\n")
    memo = _memo(buggy)
    for edited in (buggy.replace("lr = 0.1\n", "lr = 0.1\n\n\n"), buggy.replace("lr = 0.1\n", "")):
        after = engine.inspect(edited, memo=memo)
        whole = engine.inspect(edited)
        assert [f.code for f in whole.findings] == ["GG101"]
        assert after.findings == whole.findings and after.backwards == whole.backwards
        assert after.memo is not None and after.memo.replayed == 3
        memo = after.memo


def test_a_memo_whose_statements_a_later_analysis_moved_is_not_used() -> None:
    memo = _memo(SCRIPT)
    moved = engine.inspect(SCRIPT.replace("lr = 0.1\n", "lr = 0.1\n\n"), memo=memo)
    assert moved.memo is not None and moved.memo.replayed == 3
    assert incremental.replay(memo, SCRIPT, None) is None  # its tree is no longer its text's
    again = engine.inspect(SCRIPT, memo=memo)
    assert again.findings == engine.inspect(SCRIPT).findings and again.memo is not None
    assert again.memo.replayed == 0


def test_a_bug_introduced_by_an_edit_is_found_and_its_removal_clears_it() -> None:
    memo = _memo(SCRIPT)
    assert not engine.inspect(SCRIPT).findings
    buggy = SCRIPT.replace("    loss.backward()\n", "    loss.backward()\n    loss.backward()\n")
    found = engine.inspect(buggy, memo=memo)
    assert [f.code for f in found.findings] == ["GG101"]
    assert found.memo is not None
    fixed = engine.inspect(SCRIPT, memo=found.memo)
    assert fixed.findings == []


def test_a_syntax_error_is_reported_then_the_memo_of_the_last_good_text_serves() -> None:
    memo = _memo(SCRIPT)
    broken = engine.inspect(SCRIPT.replace("out.sum()", "out.sum("), memo=memo)
    assert [f.code for f in broken.findings] == ["GG000"] and broken.memo is None
    again = engine.inspect(SCRIPT.replace("out.sum()", "out.mean()"), memo=memo)
    assert again.memo is not None and again.memo.replayed == 1


def test_rule_examples_edited_at_random_analyse_as_whole() -> None:
    rng = random.Random(11)
    differences = edits = 0
    for code in RULES:
        for index, example in enumerate([*examples(code)[0], *examples(code)[1]]):
            found, runs, _, _ = check(example.source, 4, rng, f"{code}[{index}]")
            differences += found
            edits += runs
    assert edits > 500 and differences == 0


def test_the_generated_script_edited_at_random_analyses_as_whole() -> None:
    found, runs, _, _ = check(generate(1500), 12, random.Random(3), "generated")
    assert runs == 12 and found == 0


def test_a_project_loader_is_part_of_the_memo() -> None:
    memo = _memo(SCRIPT)
    assert incremental.replay(memo, SCRIPT, loader=object()) is None


def test_a_replay_that_ignores_what_changed_would_be_seen(monkeypatch: pytest.MonkeyPatch) -> None:
    """The checks above can fail: with the names an edit changed ignored, a stale unit is replayed."""
    source = "import torch\nw = torch.ones(2, requires_grad=True)\n\ndef train():\n    loss = (w * 2).sum()\n"
    source += "    loss.backward()\n    loss.backward()\n"
    edited = source.replace("torch.ones(2, requires_grad=True)", "torch.ones(2)")
    assert [f.code for f in engine.inspect(source).findings] == ["GG101"]
    whole = engine.inspect(edited).findings
    assert [f.code for f in whole] != ["GG101"]
    assert engine.inspect(edited, memo=_memo(source)).findings == whole
    monkeypatch.setattr(incremental, "changed_names", lambda *args, **kwargs: set())
    assert [f.code for f in engine.inspect(edited, memo=_memo(source)).findings] == ["GG101"]


@pytest.mark.parametrize("old, new", [("lr = 0.1\n", "lr = 0.1\n\n# two more\n"), ("lr = 0.1\n", "")])
def test_statements_after_added_lines_are_moved_not_reparsed(old: str, new: str) -> None:
    text = SCRIPT.replace(old, new)
    tree = ast.parse(SCRIPT)
    after = tree.body[3:]
    spliced = incremental.splice(SCRIPT, tree, text, shift_ok=True)
    assert spliced is not None and spliced.moved is not None
    assert tree_dump(spliced.tree) == tree_dump(ast.parse(text))
    assert all(id(s) in spliced.kept for s in after) and spliced.tree.body[-3:] == after


def test_random_edits_with_moves_splice_as_the_whole_parse() -> None:
    rng = random.Random(5)
    checked = 0
    for source in [ex.source for code in RULES for group in examples(code) for ex in group]:
        for _ in range(4):
            new = edit(source, rng)
            try:
                tree = ast.parse(source)
            except SyntaxError:
                break
            spliced = incremental.splice(source, tree, new, shift_ok=True)
            if spliced is not None:
                assert tree_dump(spliced.tree) == tree_dump(ast.parse(new))
                checked += 1
            source = new
    assert checked > 200


INHERITS = """\
import torch

class A:
    def helper(self, x):
        return x * x

class B(A):
    def run(self):
        w = torch.ones(2, requires_grad=True)
        y = self.helper(w)
        for _ in range(3):
            y.sum().backward()
"""


@pytest.mark.parametrize(
    "old, new",
    [
        ("return x * x", "return x + 1"),  # a base class's method the subclass calls
        ("class A:", "class A:\n    pass\n\nclass A2:"),  # the base is another class now
    ],
)
def test_a_subclass_runs_again_when_its_base_changes(old: str, new: str) -> None:
    memo = _memo(INHERITS)
    assert [f.code for f in engine.inspect(INHERITS).findings] == ["GG103"]
    edited = INHERITS.replace(old, new)
    assert engine.inspect(edited, memo=memo).findings == engine.inspect(edited).findings


def test_a_function_runs_again_when_its_decorator_changes() -> None:
    source = "import torch\nmode = torch.no_grad\n\n@mode()\ndef f():\n"
    source += "    w = torch.ones(2, requires_grad=True)\n    (w * w).sum().backward()\n"
    memo = _memo(source)
    edited = source.replace("mode = torch.no_grad", "mode = torch.enable_grad")
    assert [f.code for f in engine.inspect(source).findings] == ["GG106"]
    assert engine.inspect(edited, memo=memo).findings == engine.inspect(edited).findings == []


def test_module_code_that_only_uses_torch_changes_no_function() -> None:
    memo = _memo(SCRIPT)
    edited = SCRIPT.replace("lr = 0.1\n", "lr = 0.1\ntorch.manual_seed(0)\n")
    after = engine.inspect(edited, memo=memo)
    assert after.memo is not None and after.memo.replayed == 3
    assert after.findings == engine.inspect(edited).findings
