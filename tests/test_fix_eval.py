"""The fix-evaluation harness (scripts/fix_eval.py, tests/fix_probe.py) on tiny programs.

The point is that the harness can fail: a fake fix that leaves the error must fail (a), one that
detaches the loss must fail (c). All programs run in one probe server (a few seconds).
"""

from __future__ import annotations

import ast
import sys
from functools import cache
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))

from fix_eval import judge  # noqa: E402

from fix_probe import Program, RunResult, run_programs, soften_asserts  # noqa: E402

# Raises on the second backward; the first gives all four parameters a gradient.
BUGGY = """\
import torch
torch.manual_seed(0)
enc, head = torch.nn.Linear(3, 4), torch.nn.Linear(4, 1)
opt = torch.optim.SGD([*enc.parameters(), *head.parameters()], lr=0.1)
loss = head(torch.tanh(enc(torch.randn(5, 3)))).pow(2).mean()
opt.zero_grad(set_to_none=True)
loss.backward()
opt.step()
opt.zero_grad(set_to_none=True)
loss.backward()
"""
FIXED = BUGGY.replace("opt.step()\nopt.zero_grad(set_to_none=True)\nloss.backward()\n", "opt.step()\n")
DETACHED = FIXED.replace("loss.backward()", "loss.detach().requires_grad_().backward()")

# Leaves made every tracked way; a frozen parameter; gradients cleared with set_to_none.
LEAVES = """\
import torch
w = torch.zeros(3, requires_grad=True)
b = torch.randn(2).requires_grad_()
c = torch.ones(1)
c.requires_grad = True
frozen = torch.nn.Parameter(torch.ones(2), requires_grad=False)
opt = torch.optim.Adam([w, frozen], lr=0.1)
for _ in range(2):
    opt.zero_grad(set_to_none=True)
    (w.sum() * c + b.sum() + frozen.sum()).backward()
    opt.step()
"""

PROGRAMS = {
    "buggy": Program("buggy.py", BUGGY),
    "fixed": Program("fixed.py", FIXED),
    "detached": Program("detached.py", DETACHED),
    "leaves": Program("leaves.py", LEAVES),
    "write_outside": Program("w.py", "open('/tmp/../tmp/fix_probe_must_not_exist', 'w')\n"),
    "write_inside": Program("w.py", "open('out.txt', 'w').write('ok')\nopen(__file__ + '.log', 'w')\n"),
    "witness": Program("a.py", "def f():\n    assert False, 'real'\nassert 1 == 2\nf()\n", soft_asserts=True),
    "hang": Program("h.py", "while True:\n    pass\n"),
    "exit": Program("e.py", "import os\nos._exit(3)\n"),
}


@cache
def results() -> dict[str, RunResult]:
    out = run_programs(list(PROGRAMS.values()), workers=2, time_limit=5.0)
    return dict(zip(PROGRAMS, out, strict=True))


PARAMS = {("param", 0, (4, 3)), ("param", 1, (4,)), ("param", 2, (1, 4)), ("param", 3, (1,))}


def test_buggy_run_records_gradients_up_to_its_exception() -> None:
    r = results()["buggy"]
    assert r.error is not None and r.error.startswith("RuntimeError: Trying to backward through the graph")
    assert r.line == 10
    assert r.received == PARAMS
    assert r.optimized == PARAMS


def test_real_fix_passes() -> None:
    v = judge(results()["buggy"], results()["fixed"])
    assert v.clean and v.grads_kept and v.passed, v.reasons


def test_fake_fix_leaving_the_error_fails_a() -> None:
    v = judge(results()["buggy"], results()["buggy"])
    assert not v.clean and not v.passed
    assert v.reasons[0].startswith("(a) RuntimeError")


def test_fake_fix_detaching_the_loss_fails_c() -> None:
    v = judge(results()["buggy"], results()["detached"])
    assert v.clean and not v.grads_kept and not v.passed
    assert v.lost == PARAMS
    assert not v.trained_kept  # they are an optimizer's: not excused either


def test_rule_left_fails_b() -> None:
    v = judge(results()["buggy"], results()["fixed"], rule_gone=False, rule_left=["line 7: x"])
    assert v.clean and v.grads_kept and not v.passed
    assert v.reasons == ("(b) still found: line 7: x",)


def test_vacuous_before_set_falls_back_to_optimized_leaves() -> None:
    before = RunResult("RuntimeError: x", 3, False, None, frozenset(), (), frozenset(PARAMS), 0.0, "")
    v = judge(before, results()["detached"])
    assert v.vacuous and v.lost == PARAMS and not v.passed
    assert judge(before, results()["fixed"]).passed


def test_every_kind_of_leaf_is_keyed_and_set_to_none_does_not_hide_gradients() -> None:
    r = results()["leaves"]
    assert r.clean, r.failure
    assert set(r.created) == {("leaf", 0, (3,)), ("rg", 0, (2,)), ("rg", 1, (1,)), ("param", 0, (2,))}
    assert r.received == {("leaf", 0, (3,)), ("rg", 0, (2,)), ("rg", 1, (1,))}
    assert r.optimized == {("leaf", 0, (3,))}  # the frozen parameter does not count as trained


def test_writes_outside_the_working_directory_are_refused() -> None:
    r = results()["write_outside"]
    assert r.error is not None and r.error.startswith("PermissionError: fix_probe:")
    assert not Path("/tmp/fix_probe_must_not_exist").exists()
    assert results()["write_inside"].clean, results()["write_inside"].failure


def test_softened_asserts_record_and_function_asserts_still_raise() -> None:
    r = results()["witness"]
    assert r.witnesses_failed == ((3, "false"),)
    assert r.error == "AssertionError: real" and r.line == 2


def test_hang_and_exit_are_contained() -> None:
    assert results()["hang"].timed_out
    assert results()["exit"].crashed == "exit status 3 without a result"


@pytest.mark.parametrize(
    ("source", "softened"),
    [
        ("assert x\n", True),
        ("if __name__ == '__main__':\n    for i in y:\n        assert i\n", True),
        ("def main():\n    assert x\n", True),
        ("def helper():\n    assert x\n", False),
        ("class A:\n    def main(self):\n        assert x\n", False),
        ("def main():\n    def inner():\n        assert x\n", False),
    ],
)
def test_which_asserts_are_softened(source: str, softened: bool) -> None:
    tree = soften_asserts(ast.parse(source))
    assert any(isinstance(n, ast.Assert) for n in ast.walk(tree)) is not softened
    compile(tree, "<test>", "exec")  # positions kept: the tree compiles
