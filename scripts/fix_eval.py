"""Check gradguard's preferred fixes by running the fixed programs under torch (issue 10).

For every buggy case of the corpora (``tests/corpus`` and the parts of ``tests/corpus_blind``):

1. find the labelled bugs' findings: a finding matches a label when code and line agree (for the
   blind corpus also on a line labelled ``# also:`` with that code, as ``scripts/blind_eval.py``);
2. take the first label, in file order, whose finding has a fix, and apply that finding's preferred
   fix (``fixes[0]``); then, one finding at a time and re-analysing in between, the preferred fix
   of each finding of the same rule still reported (at most 10 fixes). A bug spanning statements
   (``w -= lr * w.grad; b -= lr * b.grad``) surfaces one finding per fix, as a user applying quick
   fixes sees it. ``--single`` stops after the first fix;
3. run the buggy and the fixed program, each in a fresh process (``tests/fix_probe.py``), and
   check that (a) the fixed program runs clean; (b) no finding of that rule is left (with
   ``--single``: fewer than before); (c) every parameter or trainable leaf that received a gradient
   in the buggy run (up to its exception, for a raising case) receives one in the fixed run.
   Leaves are keyed by creation order within their kind and shape, so the runs can be compared.

Two refinements of (c). When the buggy run gave no gradient at all (it raised before the first
accumulation), the leaves it handed to an optimizer (requiring grad) stand in for the set to keep:
a fix that deletes the only backward must not pass (c) vacuously. And some fixes exist to stop a
gradient (into a teacher, a frozen encoder, a target network): the table also gives (c) and the
pass count with losses excused when they are ``nn.Parameter``s that no optimizer trains.

The corpora's scripts end with asserts that witness their bug (``assert all(h.grad_fn is not None
for h in history)``): a correct fix must break them. So, in both runs, asserts outside functions
(or in a top-level ``main()``) only record whether they held (``fix_probe.soften_asserts``); the
table counts the fixes that flipped one. ``--keep-asserts`` runs the programs unchanged.

Cases whose labelled finding is not reported (engine miss), has no fix, or whose fix does not
apply (compute_fix gives nothing, or the result does not parse) are counted, not judged. The
holdout parts are only ever reported as counts; ``--list`` names cases of the other parts only.
``--self-check`` runs two fake fixes on the listed parts to show the harness can fail: the
unchanged program (must fail (b), and (a) on raising cases) and one detaching every loss before
``.backward(`` (must fail (c)). A report, not a gate: the exit status is always 0.

    python scripts/fix_eval.py [--part corpus|dev|dev2..dev16|holdout|holdout2..holdout16|all]
                               [--list] [--self-check] [--single] [--keep-asserts] [--workers N]
                               [--time-limit S]
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for _dir in (ROOT / "server", ROOT / "tests", ROOT / "scripts"):
    if str(_dir) not in sys.path:
        sys.path.insert(0, str(_dir))

from blind_eval import labels, raises  # noqa: E402

from fix_probe import Key, Program, RunResult, run_programs  # noqa: E402
from gradguard.api import check_source, compute_fix  # noqa: E402
from gradguard.findings import Finding, FixRef  # noqa: E402
from gradguard.fixes import apply_edits  # noqa: E402

SETS = range(2, 19)  # the blind corpus's second to eighteenth sets
PARTS = ("corpus", "dev", *(f"dev{n}" for n in SETS), "holdout", *(f"holdout{n}" for n in SETS))
LISTED = ("corpus", "dev", *(f"dev{n}" for n in SETS))  # the holdouts stay unseen: counts only
TARGET_RATE = 0.95
MAX_FIXES = 10  # per case; api.fix_source also stops after 10 rounds


def part_dir(part: str) -> Path:
    return ROOT / "tests" / ("corpus" if part == "corpus" else f"corpus_blind/{part}")


@dataclass
class Case:
    part: str
    path: Path
    source: str
    bugs: list[tuple[str, int]]  # (code, line) of each `# expect:` label, in file order
    also: dict[str, set[int]]
    raising: bool

    @property
    def name(self) -> str:
        return f"{self.part}/{self.path.name}"


def load_cases(part: str) -> list[Case]:
    """The buggy cases of a part (files without an `# expect:` label are correct look-alikes)."""
    cases = []
    for path in sorted(part_dir(part).glob("*.py")):
        source = path.read_text(encoding="utf-8")
        bugs, also = labels(source)
        if bugs:
            cases.append(Case(part, path, source, bugs, dict(also), raises(source)))
    return cases


@dataclass
class Attempt:
    """A case up to the point where programs must be run."""

    case: Case
    found: bool = False
    has_fix: bool = False
    code: str = ""  # the rule of the finding whose fix is applied
    line: int = 0
    kind: str = ""
    kinds: list[str] = field(default_factory=list)  # every fix applied, in order
    follow_up_failed: str = ""
    harness_error: str = ""  # preparing the case raised (counted, never judged)
    fixed: str | None = None  # the fixed source, when the (first) fix applied
    not_applied: str = ""  # why it did not
    rule_gone: bool = False
    rule_left: list[str] = field(default_factory=list)  # findings of the rule after the fix
    new_other: list[str] = field(default_factory=list)  # rules with more findings after the fix


def _matches(f: Finding, code: str, line: int, also: dict[str, set[int]]) -> bool:
    return f.code == code and (f.span.line == line or f.span.line in also.get(code, ()))


def choose(case: Case, findings: Sequence[Finding]) -> tuple[bool, Finding | None]:
    """(some label's finding is reported, the finding whose preferred fix to apply)."""
    found = False
    for code, line in case.bugs:
        hits = [f for f in findings if _matches(f, code, line, case.also)]
        hits.sort(key=lambda f: f.span.line != line)  # the finding on the label's own line first
        found = found or bool(hits)
        with_fix = [f for f in hits if f.fixes]
        if with_fix:
            return True, with_fix[0]
    return found, None


def apply_fix(source: str, ref: FixRef) -> tuple[str | None, str]:
    """(the fixed source, "") or (None, why the fix does not apply)."""
    fix = compute_fix(source, ref)
    if fix is None:
        return None, "compute_fix returned None"
    try:
        fixed = apply_edits(source, fix.edits)
        ast.parse(fixed)
    except SyntaxError as e:
        return None, f"fixed source does not parse: {e.msg} (line {e.lineno})"
    except Exception as e:  # a fix that cannot be applied is a result, not a crash of the report
        return None, f"apply_edits failed: {type(e).__name__}: {e}"
    if fixed == source:
        return None, "the edits change nothing"
    return fixed, ""


def attempt(case: Case, single: bool = False) -> Attempt:
    """Apply the preferred fix of the first labelled finding that has one; unless ``single``, then
    fix the findings of the same rule that are left, one at a time, re-analysing in between: a bug
    spanning several statements (`w -= ...; b -= ...`) surfaces one finding per fix, as a user
    applying quick fixes would see it."""
    result = Attempt(case)
    filename = str(case.path)
    findings = check_source(case.source, filename)
    result.found, target = choose(case, findings)
    if target is None:
        return result
    code, ref = target.code, target.fixes[0]
    result.has_fix, result.code, result.line, result.kind = True, code, target.span.line, ref.kind
    fixed, result.not_applied = apply_fix(case.source, ref)
    if fixed is None:
        return result
    result.kinds.append(ref.kind)
    after = check_source(fixed, filename)
    while not single and len(result.kinds) < MAX_FIXES:
        follow = next((f for f in after if f.code == code and f.fixes), None)
        if follow is None:
            break
        new, why = apply_fix(fixed, follow.fixes[0])
        if new is None:
            result.follow_up_failed = (
                f"fix of the {code} finding on line {follow.span.line} not applied: {why}"
            )
            break
        fixed, after = new, check_source(new, filename)
        result.kinds.append(follow.fixes[0].kind)
    result.fixed = fixed
    before_counts = Counter(f.code for f in findings)
    after_counts = Counter(f.code for f in after)
    left = [f for f in after if f.code == code]
    result.rule_left = [f"line {f.span.line}: {f.message[:90]}" for f in left]
    if single:  # the fixed finding is gone: fewer findings of its rule than before
        result.rule_gone = after_counts[code] < before_counts[code]
    else:
        result.rule_gone = not left
    result.new_other = sorted(c for c in after_counts if c != code and after_counts[c] > before_counts[c])
    return result


def safe_attempt(case: Case, single: bool) -> Attempt:
    # A crash here must neither stop the report nor print a traceback naming a holdout file.
    try:
        return attempt(case, single)
    except Exception as e:
        return Attempt(case, harness_error=f"{type(e).__name__}: {e}")


@dataclass(frozen=True)
class Verdict:
    clean: bool  # (a)
    rule_gone: bool  # (b)
    lost: frozenset[Key]  # (c) fails when not empty
    gained: frozenset[Key]
    reasons: tuple[str, ...]
    lost_untrained: frozenset[Key] = frozenset()  # the lost Parameters that no optimizer holds
    vacuous: bool = False  # the buggy run gave no gradient: (c) compared with its optimizers' leaves

    @property
    def grads_kept(self) -> bool:
        return not self.lost

    @property
    def trained_kept(self) -> bool:
        """(c) with lost gradients of Parameters that nothing steps excused."""
        return self.lost <= self.lost_untrained

    @property
    def passed_excused(self) -> bool:
        return self.clean and self.rule_gone and self.trained_kept

    @property
    def passed(self) -> bool:
        return self.clean and self.rule_gone and self.grads_kept

    @property
    def failed_checks(self) -> str:
        checks = (("a", self.clean), ("b", self.rule_gone), ("c", self.grads_kept))
        return ",".join(name for name, ok in checks if not ok)


def show_key(key: Key, optimized: frozenset[Key]) -> str:
    kind, index, shape = key
    where = "" if key in optimized else ", in no optimizer"
    return f"{kind}#{index} {tuple(shape)}{where}"


def judge(
    before: RunResult, after: RunResult, rule_gone: bool = True, rule_left: Sequence[str] = ()
) -> Verdict:
    """(a), (b) as computed statically, (c): the fixed run must give a gradient to every leaf the
    buggy run did (up to its exception), or, when that run gave none, to every leaf it handed to an
    optimizer; gaining some is fine."""
    vacuous = not before.received
    reference = before.optimized if vacuous else before.received
    lost = reference - after.received
    gained = after.received - before.received
    optimized = before.optimized | after.optimized
    untrained = frozenset(k for k in lost if k[0] == "param" and k not in optimized)
    reasons = []
    if not after.clean:
        reasons.append(f"(a) {after.failure}")
    if not rule_gone:
        reasons.append("(b) still found: " + ("; ".join(rule_left) or "?"))
    if lost:
        shown = ", ".join(show_key(k, optimized) for k in sorted(lost)[:6])
        more = f" and {len(lost) - 6} more" if len(lost) > 6 else ""
        what = "optimized leaves without gradient (buggy run gave none)" if vacuous else "lost gradients of"
        reasons.append(f"(c) {what} {len(lost)}/{len(reference)}: {shown}{more}")
    flipped = flipped_witnesses(before, after)
    if reasons and flipped:
        reasons.append("witness asserts now false: " + ", ".join(f"line {n} ({why})" for n, why in flipped))
    return Verdict(
        after.clean, rule_gone, frozenset(lost), frozenset(gained), tuple(reasons), untrained, vacuous
    )


def flipped_witnesses(before: RunResult, after: RunResult) -> list[tuple[int, str]]:
    """Softened asserts that fail in the fixed run (its lines), when all held in the buggy run."""
    held_before = not before.witnesses_failed
    return list(after.witnesses_failed) if held_before else []


@dataclass
class Outcome:
    attempt: Attempt
    before: RunResult | None = None
    after: RunResult | None = None
    verdict: Verdict | None = None

    @property
    def before_as_labelled(self) -> bool:
        """The buggy run raised when labelled raising, ran clean when labelled silent, and its
        witness asserts held."""
        if self.before is None:
            return True
        return (not self.before.clean) == self.attempt.case.raising and not self.before.witnesses_failed


ROWS: tuple[tuple[str, Callable[[Outcome], bool]], ...] = (
    ("buggy cases", lambda o: True),
    ("expected finding found", lambda o: o.attempt.found),
    ("with a preferred fix", lambda o: o.attempt.has_fix),
    ("fix applied", lambda o: o.attempt.fixed is not None),
    ("(a) ran clean", lambda o: o.verdict is not None and o.verdict.clean),
    ("(b) rule gone", lambda o: o.verdict is not None and o.verdict.rule_gone),
    ("(c) gradients kept", lambda o: o.verdict is not None and o.verdict.grads_kept),
    ("all three passed", lambda o: o.verdict is not None and o.verdict.passed),
    ("(c) kept, untrained params excused", lambda o: o.verdict is not None and o.verdict.trained_kept),
    ("all three, untrained params excused", lambda o: o.verdict is not None and o.verdict.passed_excused),
)
NOTES: tuple[tuple[str, Callable[[Outcome], bool]], ...] = (
    ("  not judged: engine miss", lambda o: not o.attempt.found),
    ("  not judged: no fix", lambda o: o.attempt.found and not o.attempt.has_fix),
    ("  not judged: fix not applied", lambda o: o.attempt.has_fix and o.attempt.fixed is None),
    ("  info: more than one fix applied", lambda o: len(o.attempt.kinds) > 1),
    ("  info: gained gradients", lambda o: o.verdict is not None and bool(o.verdict.gained)),
    (
        "  info: flipped a witness assert",
        lambda o: o.after is not None and o.before is not None and bool(flipped_witnesses(o.before, o.after)),
    ),
    ("  info: no gradient before, (c) vs optim.", lambda o: o.verdict is not None and o.verdict.vacuous),
    ("  info: buggy run not as labelled", lambda o: not o.before_as_labelled),
    ("  harness error preparing the case", lambda o: bool(o.attempt.harness_error)),
    ("  info: new findings, other rules", lambda o: bool(o.attempt.new_other)),
)


def evaluate(
    cases: Sequence[Case], workers: int, time_limit: float, soft: bool = True, single: bool = False
) -> list[Outcome]:
    outcomes = [Outcome(safe_attempt(case, single)) for case in cases]
    judged = [o for o in outcomes if o.attempt.fixed is not None]
    programs: list[Program] = []
    for o in judged:
        name = o.attempt.case.path.name
        programs += [Program(name, o.attempt.case.source, soft), Program(name, o.attempt.fixed or "", soft)]
    results = run_programs(programs, workers=workers, time_limit=time_limit)
    for i, o in enumerate(judged):
        o.before, o.after = results[2 * i], results[2 * i + 1]
        o.verdict = judge(o.before, o.after, o.attempt.rule_gone, o.attempt.rule_left)
    return outcomes


def rate(a: int, b: int) -> str:
    return f"{a}/{b} = {100 * a / b:.1f}%" if b else "-"


def print_table(by_part: dict[str, list[Outcome]]) -> None:
    columns = list(by_part)
    if len(columns) > 1:
        by_part = {**by_part, "total": [o for p in columns for o in by_part[p]]}
    width = max(10, *(len(c) + 2 for c in by_part))
    print(f"{'':<40}" + "".join(f"{c:>{width}}" for c in by_part))
    for label, test in ROWS + NOTES:
        print(f"{label:<40}" + "".join(f"{sum(map(test, os_)):>{width}}" for os_ in by_part.values()))
    print()
    for part, os_ in by_part.items():
        applied = sum(o.attempt.fixed is not None for o in os_)
        passed = sum(o.verdict is not None and o.verdict.passed for o in os_)
        excused = sum(o.verdict is not None and o.verdict.passed_excused for o in os_)
        met = passed >= TARGET_RATE * applied
        mark = "" if not applied else " (target 95% met)" if met else " (below 95%)"
        print(
            f"  {part}: all three passed / fix applied = {rate(passed, applied)}{mark}; "
            f"untrained params excused: {rate(excused, applied)}"
        )


def print_list(outcomes: Sequence[Outcome]) -> None:
    for o in outcomes:
        a, case = o.attempt, o.attempt.case
        if case.part not in LISTED:
            continue
        where = f"{case.name}:{a.line}"
        bugs = ", ".join(f"{c}@{n}" for c, n in case.bugs)
        if a.harness_error:
            print(f"  HARNESS {case.name}: {a.harness_error}")
        elif not a.found:
            print(f"  MISS    {case.name}: {bugs} not reported")
        elif not a.has_fix:
            print(f"  NOFIX   {case.name}: {bugs} reported without a fix")
        elif a.fixed is None:
            print(f"  NOTAPPL {where} {a.code} {a.kind}: {a.not_applied}")
        elif o.verdict is not None and not o.verdict.passed:
            reasons = " | ".join(o.verdict.reasons + ((a.follow_up_failed,) if a.follow_up_failed else ()))
            if len(a.kinds) > 1:
                reasons = f"{len(a.kinds)} fixes ({', '.join(a.kinds)}) | {reasons}"
            if a.new_other:
                reasons += f" | new findings: {', '.join(a.new_other)}"
            tag = "" if not o.verdict.passed_excused else " [excused: untrained params only]"
            print(f"  FAIL({o.verdict.failed_checks}){tag} {where} {a.code} {a.kind}: {reasons}")
        if o.before is not None and not o.before_as_labelled:
            got = o.before.failure or "ran clean"
            if o.before.witnesses_failed:
                got += f"; witness asserts false: {list(o.before.witnesses_failed)}"
            label = "raising" if case.raising else "silent"
            print(f"  NOTE    {case.name}: buggy run not as labelled ({label}): {got}")


# Fake fixes for --self-check: the harness must fail them.
BACKWARD_RE = re.compile(r"\.backward\(")


def detach_losses(source: str) -> str:
    """A fake fix that cuts every loss off its graph: `loss.backward(` becomes
    `loss.detach().requires_grad_().backward(`, so no parameter gets a gradient."""
    return BACKWARD_RE.sub(".detach().requires_grad_().backward(", source)


def self_check(outcomes: Sequence[Outcome], workers: int, time_limit: float, soft: bool = True) -> None:
    judged = [o for o in outcomes if o.verdict is not None and o.attempt.case.part in LISTED]
    detach = [(o, detach_losses(o.attempt.case.source)) for o in judged]
    detach = [(o, s) for o, s in detach if s != o.attempt.case.source]
    programs = [Program(o.attempt.case.path.name, o.attempt.case.source, soft) for o in judged]
    programs += [Program(o.attempt.case.path.name, s, soft) for o, s in detach]
    results = run_programs(programs, workers=workers, time_limit=time_limit)
    same, detached = results[: len(judged)], results[len(judged) :]
    print(f"\n== self-check on {len(judged)} judged cases of {', '.join(LISTED)}")
    # Fake fix 1: the program unchanged. Its finding is still there; a raising program still raises.
    raising = [(o, r) for o, r in zip(judged, same, strict=True) if o.attempt.case.raising]
    caught_a = sum(not judge(o.before, r).clean for o, r in raising if o.before is not None)
    print(
        f"  unchanged program: (b) fails on {len(judged)}/{len(judged)} by construction; "
        f"(a) fails on {caught_a}/{len(raising)} raising cases"
    )
    reruns = [(o.before, r) for o, r in zip(judged, same, strict=True) if o.before is not None]
    identical = sum(b.received == r.received and b.failure == r.failure for b, r in reruns)
    print(f"  rerun of the buggy program gives the same gradients and outcome: {identical}/{len(reruns)}")
    for (b, r), o in zip(reruns, judged, strict=True):
        if b.received != r.received or b.failure != r.failure:
            print(f"    NONDETERMINISTIC {o.attempt.case.name}: {b.failure} vs {r.failure}")
    # Fake fix 2: the loss detached and made a fresh leaf before backward: no parameter gets a gradient.
    pairs = zip(detach, detached, strict=True)
    # Judged where (c) has something to compare: gradients in the buggy run, or an optimizer's leaves.
    with_grads = [
        (o, r) for (o, _), r in pairs if o.before is not None and (o.before.received or o.before.optimized)
    ]
    caught_c = sum(not judge(o.before, r).grads_kept for o, r in with_grads if o.before is not None)
    print(
        f"  loss detached before .backward(: (c) fails on {caught_c}/{len(with_grads)} cases "
        "with gradients or optimized leaves in the buggy run"
    )
    for o, r in with_grads:
        if o.before is not None and judge(o.before, r).grads_kept:
            print(f"    NOT CAUGHT {o.attempt.case.name}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--part", choices=[*PARTS, "all"], default="all")
    parser.add_argument("--list", action="store_true", help="name the failing cases (not of the holdouts)")
    parser.add_argument("--self-check", action="store_true", help="show that fake fixes fail the checks")
    parser.add_argument("--keep-asserts", action="store_true", help="run the programs' asserts as they are")
    parser.add_argument(
        "--single", action="store_true", help="apply one fix per case, no follow-up fixes of the same bug"
    )
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--time-limit", type=float, default=60.0, help="seconds per program run")
    args = parser.parse_args(argv)
    parts = PARTS if args.part == "all" else (args.part,)
    start = time.perf_counter()
    cases = [c for p in parts for c in load_cases(p)]
    soft = not args.keep_asserts
    outcomes = evaluate(cases, args.workers, args.time_limit, soft, args.single)
    by_part = {p: [o for o in outcomes if o.attempt.case.part == p] for p in parts}
    unit = "one fix per case" if args.single else "preferred fix, then the rule's findings left"
    asserts = "kept" if args.keep_asserts else "softened"
    print(f"== fix evaluation ({unit}; script asserts {asserts}): {len(cases)} buggy cases, ", end="")
    print(f"{time.perf_counter() - start:.0f}s\n")
    print_table(by_part)
    if args.list:
        print()
        print_list(outcomes)
    if args.self_check:
        self_check(outcomes, args.workers, args.time_limit, soft)
    return 0


if __name__ == "__main__":
    sys.exit(main())
