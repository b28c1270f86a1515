"""Ask torch itself which tensors each op saves for backward; write the table gradguard reads.

For every op name in gradguard's NO_SAVE / SAVES_OUTPUT / SAVES_SELF / SAVES_OTHER sets, and for
the in-place variants that exist, the probe builds fresh float64 inputs (non-leaf tensors that
require grad: ``leaf.clone()``; index and mask tensors are plain), applies the op, and in separate
trials then changes a tensor IN PLACE and calls ``backward`` on ``out.sum()`` (the first element
for tuple outputs). A trial "breaks" when backward raises torch's "modified by an inplace
operation" RuntimeError. Per op the table records:

* ``saves_self``: changing the first tensor input after the op breaks backward (all float
  inputs require grad);
* ``saves_self_without_other``: the same, with the other float inputs detached (tells "saves
  self for its own gradient", e.g. ``pow``, from "saves self for the other's gradient", e.g.
  ``mul``);
* ``saves_other``: changing any other tensor input (operand, weight, index, mask) breaks backward;
* ``saves_output``: changing the output breaks backward;
* ``saves_any``: a second ``backward`` without ``retain_graph`` fails, i.e. the op's backward
  saves some tensor, visible or not (a dropout mask, the indices of ``max``).

For an in-place op ``x.op_(...)`` (kind "inplace") the receiver is a non-leaf clone and is the
result too: ``saves_output`` (and ``saves_self``, which is the same trial) says whether a LATER
in-place change of the result breaks backward, i.e. whether the op saved its output or needs its
original input without having kept a copy; ``saves_other`` says whether changing its other
operand does.

A trial whose in-place change torch refuses outright (the views returned by ``chunk`` /
``split`` / ``unbind``) counts as not breaking and is listed under "notes". Ops that do not exist
in this torch, or cannot be probed here (``cuda`` without a CUDA device), are listed under
"unprobed" with the reason; nothing is guessed.

    python3 scripts/probe_autograd_ops.py          # (re)write server/gradguard/engine/data/autograd_ops.json
    python3 scripts/probe_autograd_ops.py --check  # exit 1 with a diff if that file is stale
"""

from __future__ import annotations

import argparse
import difflib
import inspect
import json
import sys
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
import torch.nn.functional as F  # noqa: N812

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "server" / "gradguard" / "engine" / "data" / "autograd_ops.json"
GENERATED_BY = "scripts/probe_autograd_ops.py"
INPLACE_MSG = "modified by an inplace operation"
FREED_MSG = "backward through the graph a second time"
MULTI_VIEW_MSG = "output of a function that returns multiple views"

Tensor = torch.Tensor
# A tensor recipe: (domain, shape). Domains: "f" any float, "pos" positive float, "unit" float in
# (-0.8, 0.8), "f32" float32 (a dtype reference), "bool" mask, "idx<N>" int64 indices in [0, N),
# "spd" a symmetric positive definite matrix (eigh, cholesky; well conditioned for the others).
Recipe = tuple[str, tuple[int, ...]]
Call = Callable[[Callable[..., Any], list[Tensor]], Any]

# Method form: ``t[0].name(*rest)``; torch form: ``torch.name(...)``; F form: ``F.name(...)``;
# linalg form: ``torch.linalg.name(...)``.
METHOD, TORCH, FUNC, LINALG = "method", "torch", "F", "linalg"


def _default_call(f: Callable[..., Any], t: list[Tensor]) -> Any:
    return f(*t)


@dataclass(frozen=True)
class Spec:
    name: str
    form: str
    recipes: tuple[Recipe, ...]
    call: Call = _default_call
    # in-place variants probed from this spec (Tensor.<name>_ / F.<name>_ / F.<name>(inplace=True))
    inplace: bool = True


def S(name: str, form: str, *recipes: Recipe, call: Call = _default_call, inplace: bool = True) -> Spec:
    return Spec(name, form, tuple(recipes), call, inplace)


A: Recipe = ("f", (3, 4))
B: Recipe = ("f", (3, 4))
POS: Recipe = ("pos", (3, 4))
UNIT: Recipe = ("unit", (3, 4))
SPD: Recipe = ("spd", (4, 4))


def _specs() -> list[Spec]:
    """One probe per op name of the four sets (and a few in-place-only ops)."""
    ms = METHOD
    specs = [
        # --- NO_SAVE (hand-written) ---
        S("add", ms, A, B),
        S("sub", ms, A, B),
        S("neg", ms, A),
        S("negative", ms, A),
        S("positive", ms, A),
        S("sum", ms, A),
        S("mean", ms, A),
        S("view", ms, A, call=lambda f, t: f(t[0], 12)),
        S("view_as", ms, A, ("f", (12,))),
        S("reshape", ms, A, call=lambda f, t: f(t[0], 12)),
        S("reshape_as", ms, A, ("f", (12,))),
        S("flatten", ms, A),
        S("unflatten", ms, A, call=lambda f, t: f(t[0], 1, (2, 2))),
        S("t", ms, A),
        S("transpose", ms, A, call=lambda f, t: f(t[0], 0, 1)),
        S("swapaxes", ms, A, call=lambda f, t: f(t[0], 0, 1)),
        S("movedim", ms, A, call=lambda f, t: f(t[0], 0, 1)),
        S("permute", ms, A, call=lambda f, t: f(t[0], 1, 0)),
        S("squeeze", ms, ("f", (3, 1, 4))),
        S("unsqueeze", ms, A, call=lambda f, t: f(t[0], 0)),
        S("expand", ms, ("f", (3, 1)), call=lambda f, t: f(t[0], 3, 4)),
        S("expand_as", ms, ("f", (3, 1)), B),
        S("contiguous", ms, A),
        S("clone", ms, A),
        S("narrow", ms, A, call=lambda f, t: f(t[0], 0, 0, 2)),
        S("select", ms, A, call=lambda f, t: f(t[0], 0, 1)),
        S("cat", TORCH, A, B, call=lambda f, t: f([t[0], t[1]])),
        S("concat", TORCH, A, B, call=lambda f, t: f([t[0], t[1]])),
        S("concatenate", TORCH, A, B, call=lambda f, t: f([t[0], t[1]])),
        S("stack", TORCH, A, B, call=lambda f, t: f([t[0], t[1]])),
        S("hstack", TORCH, A, B, call=lambda f, t: f([t[0], t[1]])),
        S("vstack", TORCH, A, B, call=lambda f, t: f([t[0], t[1]])),
        S("float", ms, A),
        S("double", ms, A),
        S("half", ms, A),
        S("bfloat16", ms, A),
        S("to", ms, A, call=lambda f, t: f(t[0], torch.float32)),
        S("cpu", ms, A),
        S("cuda", ms, A),
        S("type_as", ms, A, ("f32", (3, 4))),
        S("repeat", ms, A, call=lambda f, t: f(t[0], 2, 1)),
        S("tile", ms, A, call=lambda f, t: f(t[0], (2, 1))),
        S("chunk", ms, A, call=lambda f, t: f(t[0], 2)),
        S("split", ms, A, call=lambda f, t: f(t[0], 2)),
        S("unbind", ms, A),
        S("flip", ms, A, call=lambda f, t: f(t[0], 0)),
        S("roll", ms, A, call=lambda f, t: f(t[0], 1, 0)),
        # --- SAVES_OUTPUT (hand-written) ---
        S("exp", ms, A),
        S("exp2", ms, A),
        S("expm1", ms, A),
        S("sigmoid", ms, A),
        S("tanh", ms, A),
        S("relu", ms, A),
        S("sqrt", ms, POS),
        S("rsqrt", ms, POS),
        S("reciprocal", ms, POS),
        S("softmax", ms, A, call=lambda f, t: f(t[0], 1)),
        S("log_softmax", ms, A, call=lambda f, t: f(t[0], 1)),
        # --- SAVES_SELF (hand-written) ---
        S("log", ms, POS),
        S("log2", ms, POS),
        S("log10", ms, POS),
        S("log1p", ms, POS),
        S("sin", ms, A),
        S("cos", ms, A),
        S("tan", ms, UNIT),
        S("abs", ms, A),
        S("pow", ms, A, call=lambda f, t: f(t[0], 2)),
        S("clamp", ms, A, call=lambda f, t: f(t[0], -0.5, 0.5)),
        S("clip", ms, A, call=lambda f, t: f(t[0], -0.5, 0.5)),
        S("leaky_relu", FUNC, A),
        S("gelu", FUNC, A),
        S("silu", FUNC, A),
        S("elu", FUNC, A),
        S("selu", FUNC, A),
        S("softplus", FUNC, A),
        S("mish", FUNC, A),
        S("hardswish", FUNC, A),
        S("erf", ms, A),
        S("atan", ms, A),
        S("asin", ms, UNIT),
        S("acos", ms, UNIT),
        S("sinh", ms, A),
        S("cosh", ms, A),
        S("square", ms, A),
        S("prod", ms, A),
        S("norm", ms, A),
        S("var", ms, A),
        S("std", ms, A),
        # full reductions: the engine models max/min/amax/amin without arguments only
        S("max", ms, A),
        S("min", ms, A),
        S("amax", ms, A),
        S("amin", ms, A),
        # the reductions along a dim that return (values, indices): "<name>.dim" is `x.<name>(dim)`
        S("max.dim", ms, A, call=lambda f, t: f(t[0], 1)[0]),
        S("min.dim", ms, A, call=lambda f, t: f(t[0], 1)[0]),
        S("median.dim", ms, A, call=lambda f, t: f(t[0], 1)[0]),
        S("sort", ms, A, call=lambda f, t: f(t[0], 1)[0]),
        S("topk", ms, A, call=lambda f, t: f(t[0], 2, 1)[0]),
        S("kthvalue", ms, A, call=lambda f, t: f(t[0], 2, 1)[0]),
        S("mode", ms, A, call=lambda f, t: f(t[0], 1)[0]),
        S("logsumexp", ms, A, call=lambda f, t: f(t[0], 1)),
        S("logcumsumexp", ms, A, call=lambda f, t: f(t[0], 1)),
        S("nan_to_num", ms, A),
        S("diagonal", ms, A),
        S("diag", ms, A),
        S("trace", ms, A),
        S("cdist", TORCH, A, B),
        S("dist", ms, A, B),
        S("cumprod", ms, A, call=lambda f, t: f(t[0], 1)),
        S("masked_fill", ms, A, ("bool", (3, 4)), call=lambda f, t: f(t[0], t[1], 0.0)),
        # torch.where(cond, x, y): the first tensor input is the condition
        S("where", TORCH, ("bool", (3, 4)), A, B),
        S("gather", ms, A, ("idx4", (3, 2)), call=lambda f, t: f(t[0], 1, t[1])),
        S("index_select", ms, A, ("idx3", (2,)), call=lambda f, t: f(t[0], 0, t[1])),
        # scatter-style writes into a copy (message passing, memory banks)
        S("index_add", ms, A, ("idx3", (2,)), ("f", (2, 4)), call=lambda f, t: f(t[0], 0, t[1], t[2])),
        S("index_copy", ms, A, ("idx3", (2,)), ("f", (2, 4)), call=lambda f, t: f(t[0], 0, t[1], t[2])),
        S("scatter_add", ms, A, ("idx3", (1, 4)), ("f", (1, 4)), call=lambda f, t: f(t[0], 0, t[1], t[2])),
        S("scatter", ms, A, ("idx3", (1, 4)), ("f", (1, 4)), call=lambda f, t: f(t[0], 0, t[1], t[2])),
        # (its backward keeps the result whatever the reduction: checked for sum, prod, mean, amax, amin)
        S(
            "scatter_reduce",
            ms,
            A,
            ("idx3", (1, 4)),
            ("f", (1, 4)),
            call=lambda f, t: f(t[0], 0, t[1], t[2], reduce="amax", include_self=False),
        ),
        S("dropout", FUNC, A, call=lambda f, t: f(t[0], 0.5, True)),
        S(
            "layer_norm",
            FUNC,
            A,
            ("f", (4,)),
            ("f", (4,)),
            call=lambda f, t: f(t[0], (4,), t[1], t[2]),
        ),
        S(
            "batch_norm",
            FUNC,
            A,
            ("f", (4,)),
            ("f", (4,)),
            call=lambda f, t: f(
                t[0],
                torch.zeros(4, dtype=torch.float64),
                torch.ones(4, dtype=torch.float64),
                t[1],
                t[2],
                True,
            ),
        ),
        S(
            "group_norm",
            FUNC,
            ("f", (3, 4, 5)),
            ("f", (4,)),
            ("f", (4,)),
            call=lambda f, t: f(t[0], 2, t[1], t[2]),
        ),
        S("normalize", FUNC, A, call=lambda f, t: f(t[0], 2.0, 1)),
        # --- SAVES_OTHER (hand-written) ---
        S("mul", ms, A, B),
        S("multiply", ms, A, B),
        # elementwise min/max of two tensors (also `torch.min(a, b)` / `torch.max(a, b)`)
        S("minimum", ms, A, B),
        S("maximum", ms, A, B),
        S("div", ms, A, POS),
        S("divide", ms, A, POS),
        S("true_divide", ms, A, POS),
        S("matmul", ms, A, ("f", (4, 5))),
        S("mm", ms, A, ("f", (4, 5))),
        S("bmm", ms, ("f", (2, 3, 4)), ("f", (2, 4, 5))),
        S("mv", ms, A, ("f", (4,))),
        S("dot", ms, ("f", (4,)), ("f", (4,))),
        S("outer", ms, ("f", (3,)), ("f", (4,))),
        S("einsum", TORCH, A, ("f", (4, 5)), call=lambda f, t: f("ij,jk->ik", t[0], t[1])),
        S("linear", FUNC, A, ("f", (5, 4)), ("f", (5,))),
        S("bilinear", FUNC, A, ("f", (3, 5)), ("f", (6, 4, 5)), ("f", (6,))),
        S("conv1d", FUNC, ("f", (1, 2, 8)), ("f", (3, 2, 3))),
        S("conv2d", FUNC, ("f", (1, 2, 5, 5)), ("f", (3, 2, 3, 3))),
        S("conv3d", FUNC, ("f", (1, 2, 4, 4, 4)), ("f", (3, 2, 2, 2, 2))),
        S("baddbmm", ms, ("f", (2, 3, 5)), ("f", (2, 3, 4)), ("f", (2, 4, 5))),
        S("addmm", ms, ("f", (3, 5)), A, ("f", (4, 5))),
        S("clamp_min", ms, A, call=lambda f, t: f(t[0], 0.0), inplace=False),
        S("clamp_max", ms, A, call=lambda f, t: f(t[0], 0.0), inplace=False),
        # --- linear algebra (torch.linalg, and the torch functions that return several tensors) ---
        S("eigh", LINALG, SPD, inplace=False),
        S("qr", LINALG, SPD, inplace=False),
        S("svd", LINALG, SPD, inplace=False),
        S("slogdet", LINALG, SPD, inplace=False),
        S("det", LINALG, SPD, inplace=False),
        S("inv", LINALG, SPD, inplace=False),
        S("cholesky", LINALG, SPD, inplace=False),
        S("solve", LINALG, SPD, ("f", (4,)), inplace=False),
        S("pinv", LINALG, SPD, inplace=False),
        S("matrix_norm", LINALG, SPD, inplace=False),
        S("vector_norm", LINALG, A, inplace=False),
        S("logdet", TORCH, SPD),
        S("inverse", TORCH, SPD),
        S("aminmax", TORCH, A),
        S("std_mean", TORCH, A),
        S("var_mean", TORCH, A),
    ]
    return specs


def _inplace_only_specs() -> list[Spec]:
    """In-place ops whose out-of-place twin is not in the four sets (probed as in-place only)."""
    ms = METHOD
    return [
        S("clamp_min_", ms, A, call=lambda f, t: f(t[0], 0.0)),
        S("fill_", ms, A, call=lambda f, t: f(t[0], 0.5)),
        S("zero_", ms, A),
        S("copy_", ms, A, B),
        S("addcmul_", ms, A, B, ("f", (3, 4))),
        S("addcdiv_", ms, A, B, ("pos", (3, 4))),
        S("lerp_", ms, A, B, call=lambda f, t: f(t[0], t[1], 0.3)),
        S("clamp_max_", ms, A, call=lambda f, t: f(t[0], 0.0)),
        S("index_fill_", ms, A, ("idx3", (2,)), call=lambda f, t: f(t[0], 0, t[1], 0.0)),
        S("scatter_", ms, A, ("idx3", (1, 4)), ("f", (1, 4)), call=lambda f, t: f(t[0], 0, t[1], t[2])),
        S("index_add_", ms, A, ("idx3", (2,)), ("f", (2, 4)), call=lambda f, t: f(t[0], 0, t[1], t[2])),
        S("masked_scatter_", ms, A, ("bool", (3, 4)), B),
    ]


# ----------------------------------------------------------------------------------------------------------
# Building inputs and running trials


def _make(recipe: Recipe, gen: torch.Generator, grad: bool) -> Tensor:
    domain, shape = recipe
    f64 = torch.float64
    if domain.startswith("idx"):
        return torch.randint(0, int(domain[3:]), shape, generator=gen)
    if domain == "bool":
        return torch.rand(shape, generator=gen, dtype=f64) > 0.5
    if domain == "f32":
        base = torch.randn(shape, generator=gen, dtype=torch.float32)
    elif domain == "pos":
        base = torch.rand(shape, generator=gen, dtype=f64) + 0.5
    elif domain == "unit":
        base = torch.rand(shape, generator=gen, dtype=f64) * 1.6 - 0.8
    elif domain == "spd":
        m = torch.randn(shape, generator=gen, dtype=f64)
        base = m @ m.T + shape[0] * torch.eye(shape[0], dtype=f64)
    else:
        base = torch.randn(shape, generator=gen, dtype=f64)
    if not grad:
        return base
    # clone (not ``* 1``): CloneBackward saves nothing, so the double-backward trial sees the op alone
    return base.requires_grad_(True).clone()


def _inputs(spec: Spec, grad_mask: Sequence[bool]) -> list[Tensor]:
    gen = torch.Generator().manual_seed(0)
    return [_make(r, gen, g) for r, g in zip(spec.recipes, grad_mask, strict=True)]


def _mutate(t: Tensor) -> None:
    """An in-place change (its value hardly matters: torch checks version counters)."""
    if t.dtype == torch.bool:
        t.logical_not_()
    elif not t.is_floating_point():
        t.zero_()
    else:
        t.add_(1)


def _first(out: Any) -> Tensor:
    if isinstance(out, Tensor):
        return out
    if isinstance(out, (tuple, list)) and out and isinstance(out[0], Tensor):
        return out[0]
    raise TypeError(f"output is {type(out).__name__}, not a tensor")


class Refused(Exception):
    """torch refused the in-place change itself."""


class Unprobed(Exception):
    pass


@dataclass
class Probe:
    name: str
    kind: str
    fn: Callable[..., Any]
    spec: Spec
    is_inplace: bool

    def run(self, grad_mask: Sequence[bool], mutate: Callable[[list[Tensor], Tensor], Tensor | None]) -> bool:
        """Apply the op, change one tensor in place, backward. True iff backward reports the change."""
        ts = _inputs(self.spec, grad_mask)
        out = self.spec.call(self.fn, ts)
        res = ts[0] if self.is_inplace else _first(out)
        if res.grad_fn is None:
            raise Unprobed("the result has no grad_fn")
        target = mutate(ts, res)
        if target is not None:
            try:
                _mutate(target)
            except RuntimeError as e:
                raise Refused(f"in-place change refused: {str(e).splitlines()[0]}") from e
        try:
            res.sum().backward()
        except RuntimeError as e:
            if INPLACE_MSG in str(e):
                return True
            if MULTI_VIEW_MSG in str(e):
                # not a saved tensor: torch forbids changing the base of multi-output views
                raise Refused(f"backward refused: {str(e).splitlines()[0]}") from e
            raise Unprobed(f"backward failed: {str(e).splitlines()[0]}") from e
        return False

    def freed_on_second_backward(self) -> bool:
        ts = _inputs(self.spec, self._all_grad())
        out = self.spec.call(self.fn, ts)
        res = ts[0] if self.is_inplace else _first(out)
        s = res.sum()
        s.backward()
        try:
            s.backward()
        except RuntimeError as e:
            if FREED_MSG in str(e):
                return True
            raise Unprobed(f"second backward failed: {str(e).splitlines()[0]}") from e
        return False

    def _all_grad(self) -> list[bool]:
        return [r[0] in ("f", "pos", "unit", "f32", "spd") for r in self.spec.recipes]


def _trial(
    probe: Probe,
    label: str,
    notes: dict[str, str],
    grad_mask: Sequence[bool],
    mutate: Callable[[list[Tensor], Tensor], Tensor | None],
) -> bool:
    try:
        return probe.run(grad_mask, mutate)
    except Refused as e:
        notes[f"{probe.name}: {label}"] = str(e)
        return False


def _pick(i: int) -> Callable[[list[Tensor], Tensor], Tensor]:
    def pick(ts: list[Tensor], res: Tensor) -> Tensor:
        return ts[i]

    return pick


def probe_op(probe: Probe, notes: dict[str, str]) -> dict[str, Any]:
    all_grad = probe._all_grad()
    n = len(all_grad)
    probe.run(all_grad, lambda ts, res: None)  # baseline: backward must work untouched
    if probe.is_inplace:
        saves_output = _trial(probe, "result", notes, all_grad, lambda ts, res: res)
        saves_self = saves_output
        alone = [all_grad[0], *([False] * (n - 1))]
        saves_self_wo = _trial(probe, "result, other detached", notes, alone, lambda ts, res: res)
    else:
        saves_self = _trial(probe, "first input", notes, all_grad, lambda ts, res: ts[0])
        saves_output = _trial(probe, "output", notes, all_grad, lambda ts, res: res)
        # the second float input detached (no gradient wanted for it)
        wo = list(all_grad)
        if n > 1:
            wo[1] = False
        saves_self_wo = (
            saves_self
            if wo == all_grad
            else _trial(probe, "first input, other detached", notes, wo, lambda ts, res: ts[0])
        )
    saves_other = False
    for i in range(1, n):
        if _trial(probe, f"input {i}", notes, all_grad, _pick(i)):
            saves_other = True
    saves_any = probe.freed_on_second_backward()
    return {
        "kind": probe.kind,
        "saves_any": saves_any or saves_self or saves_other or saves_output,
        "saves_other": saves_other,
        "saves_output": saves_output,
        "saves_self": saves_self,
        "saves_self_without_other": saves_self_wo,
    }


def _resolve(spec: Spec, name: str, inplace: bool) -> tuple[Callable[..., Any], str] | str:
    """The callable for ``name`` in the spec's form, and its kind; or why there is none."""
    if spec.form == METHOD:
        method = name.split(".")[0]  # "max.dim": the method `max`, called as the spec says
        if not hasattr(Tensor, method):
            return f"torch.Tensor has no method {name!r}"
        return (lambda *a, **k: getattr(a[0], method)(*a[1:], **k)), "inplace" if inplace else "method"
    module: Any = {TORCH: torch, LINALG: torch.linalg}.get(spec.form, F)
    where = {TORCH: "torch", LINALG: "torch.linalg"}.get(spec.form, "torch.nn.functional")
    if hasattr(module, name):
        return getattr(module, name), "inplace" if inplace else "function"
    if inplace and spec.form == FUNC and hasattr(F, name[:-1]):
        base = getattr(F, name[:-1])
        try:
            has_flag = "inplace" in inspect.signature(base).parameters
        except (TypeError, ValueError):
            has_flag = False
        if has_flag:
            return (lambda *a, **k: base(*a, inplace=True, **k)), "inplace"
        return f"{where}.{name[:-1]} has no in-place variant"
    return f"{where} has no {name!r}"


def build_table() -> dict[str, Any]:
    warnings.simplefilter("ignore")
    torch.manual_seed(0)
    ops: dict[str, Any] = {}
    unprobed: dict[str, str] = {}
    notes: dict[str, str] = {}

    def attempt(spec: Spec, name: str, inplace: bool) -> None:
        if name in ops or name in unprobed:
            return
        if name == "cuda" and not torch.cuda.is_available():
            unprobed[name] = "no CUDA device on the probing machine"
            return
        resolved = _resolve(spec, name, inplace)
        if isinstance(resolved, str):
            unprobed[name] = resolved
            return
        fn, kind = resolved
        try:
            ops[name] = probe_op(Probe(name, kind, fn, spec, inplace), notes)
        except (Unprobed, RuntimeError, TypeError, ValueError, IndexError) as e:
            unprobed[name] = f"{type(e).__name__}: {str(e).splitlines()[0]}"

    specs = _specs()
    for spec in specs:
        attempt(spec, spec.name, False)
    for spec in specs:
        name = spec.name + "_"
        if spec.form == METHOD and not hasattr(Tensor, name):
            continue
        if spec.form in (TORCH, LINALG):
            continue
        if spec.form == FUNC and not hasattr(F, name) and not _has_inplace_flag(spec.name):
            continue
        attempt(spec, name, True)
    for spec in _inplace_only_specs():
        attempt(spec, spec.name, True)
    # in-place names asked for by name even where they do not exist, so the table says so
    for name in ("softmax_", "gelu_", "silu_", "mish_", "hardswish_"):
        if name not in ops and name not in unprobed:
            unprobed[name] = "no in-place variant as a Tensor method or in torch.nn.functional"
    version = torch.__version__.split("+")[0]
    return {
        "header": {"generated_by": GENERATED_BY, "torch": version},
        "notes": notes,
        "ops": ops,
        "unprobed": unprobed,
    }


def _has_inplace_flag(name: str) -> bool:
    base = getattr(F, name, None)
    if base is None:
        return False
    try:
        return "inplace" in inspect.signature(base).parameters
    except (TypeError, ValueError):
        return False


def render(table: dict[str, Any]) -> str:
    return json.dumps(table, indent=2, sort_keys=True) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--check", action="store_true", help="compare with the committed table; exit 1 if stale"
    )
    parser.add_argument("--output", type=Path, default=OUTPUT)
    args = parser.parse_args(argv)
    text = render(build_table())
    if args.check:
        old = args.output.read_text(encoding="utf-8") if args.output.exists() else ""
        if old == text:
            print(f"{args.output}: up to date")
            return 0
        sys.stdout.writelines(
            difflib.unified_diff(
                old.splitlines(keepends=True),
                text.splitlines(keepends=True),
                fromfile=f"{args.output} (committed)",
                tofile="probe (now)",
            )
        )
        print(f"{args.output} is stale: run python3 {GENERATED_BY}", file=sys.stderr)
        return 1
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(text, encoding="utf-8")
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
