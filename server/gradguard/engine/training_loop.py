"""GG201: a training loop that never zeroes gradients, or zeroes them between backward and step."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..observations import GradientsNeverCleared, ZeroGradBetween
from . import torchapi as api
from .values import OptimizerInfo, Ty, Val

if TYPE_CHECKING:
    from .evaluate import Evaluator
    from .report import Reporter


def _statements(stmts: list[ast.stmt], into_loops: bool = True) -> Iterator[ast.stmt]:
    """Every statement of a block, nested blocks included (loops' only if ``into_loops``), nested
    functions excluded."""
    for stmt in stmts:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        yield stmt
        if not into_loops and isinstance(stmt, (ast.For, ast.AsyncFor, ast.While)):
            continue
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(stmt, field, None)
            if isinstance(inner, list):
                yield from _statements(inner, into_loops)
        for handler in getattr(stmt, "handlers", ()) or ():
            yield from _statements(handler.body, into_loops)


def _calls(loop: ast.AST) -> list[ast.Call]:
    """Calls made as statements or assigned (where backward, step and zero_grad live)."""
    out: list[ast.Call] = []
    for stmt in _statements(list(getattr(loop, "body", []))):
        value = getattr(stmt, "value", None)
        if isinstance(stmt, (ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign)) and isinstance(
            value, ast.Call
        ):
            out.append(value)
    return out


def _resolve(node: ast.expr, env: dict[str, Val], ev: Evaluator) -> Val | None:
    """The value a name or attribute chain has when the loop starts: ``optimizer``, or
    ``self.optimizer`` through the object ``self`` refers to (its heap cell)."""
    if isinstance(node, ast.Name):
        found = env.get(node.id)
        if found is not None:
            return found
        own = ev.frames[-1].globals if ev.frames else None  # a function of another module: its names
        if own is None and ev.global_reads is not None:
            ev.global_reads.add(node.id)
        return (own if own is not None else ev.globals_env).get(node.id)
    if isinstance(node, ast.Attribute):
        base = _resolve(node.value, env, ev)
        if base is not None and base.module is not None and base.ty in (Ty.MODULE, Ty.OTHER):
            return env.get(f"{base.module.key}.{node.attr}")
    return None


def _same(a: ast.expr, b: ast.expr) -> bool:
    """The same receiver as code: `optimizer`, `self.optimizer`, `opts[0]`."""
    if isinstance(a, ast.Name) and isinstance(b, ast.Name):
        return a.id == b.id
    if isinstance(a, ast.Attribute) and isinstance(b, ast.Attribute):
        return a.attr == b.attr and _same(a.value, b.value)
    if type(a) is not type(b):
        return False
    return ast.dump(a) == ast.dump(b)


_CLEARS = re.compile(r"zero_grad|\.grad\s*=[^=]|\.grad\.(?:data\.)?(?:zero_|fill_)\(")


_CLEARS_BY_HAND = re.compile(r"\.grad\s*=[^=]|\.grad\.(?:data\.)?(?:zero_|fill_)\(")


def _stepped(call: ast.Call, env: dict[str, Val], ev: Evaluator) -> ast.expr | None:
    """The optimizer a `.step(...)` call steps: `optimizer.step()`, or `scaler.step(optimizer)` of a
    mixed-precision `GradScaler` (None: not an optimizer's step)."""
    if not (isinstance(call.func, ast.Attribute) and call.func.attr == "step"):
        return None
    recv = _resolve(call.func.value, env, ev)
    if recv is not None and recv.ty is Ty.OPTIMIZER:
        return call.func.value
    if recv is not None and recv.qual == api.GRAD_SCALER and call.args:
        given = _resolve(call.args[0], env, ev)
        if given is not None and given.ty is Ty.OPTIMIZER:
            return call.args[0]
    return None


def _clears_grads(
    rep: Reporter,
    loop: ast.AST,
    statement_calls: list[ast.Call],
    step: ast.Call,
    env: dict[str, Val],
    ev: Evaluator,
) -> bool:
    """May the loop clear the gradients this step applies? `p.grad = None` and `p.grad.zero_()`
    may clear any (a text test); a `zero_grad()` clears its optimizer's or module's parameters,
    and one on something unresolved may clear anything."""
    if not rep.mentions(loop, _CLEARS):
        return False
    if rep.mentions(loop, _CLEARS_BY_HAND):
        return True
    target = _stepped(step, env, ev)
    opt = _resolve(target, env, ev) if target is not None else None
    if opt is None or not isinstance(opt.info, OptimizerInfo) or not opt.info.objs:
        return True  # which parameters it steps is not known
    stepped = opt.info.objs
    cleared: set[object] = set()  # `decoder.zero_grad(); encoder.zero_grad()` clear together
    calls = [c for c in statement_calls if isinstance(c.func, ast.Attribute) and c.func.attr == "zero_grad"]
    if not calls:
        return True  # mentioned, but not as a statement of its own: not looked into, may clear
    for call in calls:
        assert isinstance(call.func, ast.Attribute)
        each = _walked_optimizers(loop, call, env, ev)
        if each is not None:
            # `for o in (opt_a, opt_b): o.zero_grad()`: each of them is cleared.
            if any(info is opt.info or not info.objs for info in each):
                return True
            for info in each:
                cleared |= info.objs
            continue
        recv = _resolve(call.func.value, env, ev)
        if recv is not None and recv.ty is Ty.OPTIMIZER and isinstance(recv.info, OptimizerInfo):
            if recv.info is opt.info or not recv.info.objs:
                return True
            cleared |= recv.info.objs
        elif recv is not None and recv.ty is Ty.MODULE and recv.module is not None:
            cleared |= recv.module.all_params_objs()
        else:
            return True  # something unresolved: it may clear anything
    return stepped <= cleared


def _fresh_each_iteration(loop: ast.AST, opt: ast.expr | None, ev: Evaluator) -> bool:
    """Is ``opt`` made by a statement of the loop's body, from parameters of modules or tensors that
    statements of the body before it make anew (`model = nn.Linear(4, 1)`, `delta = torch.zeros(...,
    requires_grad=True)`), so that no gradient outlives the iteration?"""
    if not isinstance(opt, ast.Name):
        return False
    made: set[str] = set()  # names the body binds to something it constructs
    for stmt in getattr(loop, "body", []):
        target = stmt.targets[0] if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 else None
        if not isinstance(target, ast.Name):
            continue
        name, value = target.id, stmt.value
        qual = (ev.qual_of(value.func) if isinstance(value, ast.Call) else None) or ""
        if name == opt.id:
            optimizer = qual.startswith("torch.optim.") and qual.rsplit(".", 1)[-1] in api.OPTIMIZERS
            if not optimizer or not isinstance(value, ast.Call) or not value.args:
                return False
            used = {n.id for n in ast.walk(value.args[0]) if isinstance(n, ast.Name)}
            return bool(used) and used <= made
        constructs = isinstance(value, ast.Call) and (
            qual.startswith("torch.")
            or (isinstance(value.func, ast.Name) and value.func.id in ev.classes)
        )
        if constructs:
            made.add(name)
        else:
            made.discard(name)
    return False


def _walked_optimizers(
    loop: ast.AST, call: ast.Call, env: dict[str, Val], ev: Evaluator
) -> list[OptimizerInfo] | None:
    """The optimizers a `for o in (opt_a, opt_b):` inside ``loop`` binds to the receiver of
    ``call`` (`o.zero_grad()` in its body), when the sequence is known and holds only those."""
    recv = call.func.value if isinstance(call.func, ast.Attribute) else None
    if not isinstance(recv, ast.Name) or f"for {recv.id} in" not in ev.rep.segment(loop):
        return None  # (a text test first: the walk below is for the few loops it may be)
    found = ev.for_binding.get(id(loop))
    if found is None:
        # Once per loop: each call in the body of an inner `for` whose target is the call's receiver.
        found = ev.for_binding[id(loop)] = {}
        for stmt in ast.walk(loop):
            if isinstance(stmt, ast.For) and isinstance(stmt.target, ast.Name):
                for inner in ast.walk(ast.Module(body=stmt.body, type_ignores=[])):
                    func = inner.func if isinstance(inner, ast.Call) else None
                    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
                        if func.value.id == stmt.target.id:
                            found.setdefault(id(inner), stmt)
    binder = found.get(id(call))
    if binder is None:
        return None
    if isinstance(binder.iter, (ast.Tuple, ast.List)):
        items = [_resolve(e, env, ev) for e in binder.iter.elts]
    else:
        named = isinstance(binder.iter, (ast.Name, ast.Attribute))
        seq = _resolve(binder.iter, env, ev) if named else None
        items = list(seq.elts) if seq is not None and seq.elts is not None else [None]
    infos = [v.info for v in items if v is not None and isinstance(v.info, OptimizerInfo)]
    return infos if infos and len(infos) == len(items) else None


def check_zero_grad(
    rep: Reporter, loop: ast.For | ast.While | ast.AsyncFor, env: dict[str, Val], ev: Evaluator
) -> None:
    calls = _calls(loop)
    backwards = [c for c in calls if isinstance(c.func, ast.Attribute) and c.func.attr == "backward"]
    steps = [c for c in calls if _stepped(c, env, ev) is not None]
    if not backwards or all(_dead(c, ev) for c in backwards):
        return  # no backward, or only in arms a known test always skips (`if len(x) == 5:`)
    _misplaced(rep, loop, env, ev)
    # A step whose optimizer's gradients nothing in the loop clears (another optimizer's zero_grad
    # leaves them: `optimizer_g.zero_grad()` does not clear the discriminator's).
    steps = [c for c in steps if not _clears_grads(rep, loop, calls, c, env, ev)]
    # An optimizer made in each iteration over parameters made in it too (a model per trial of a
    # sweep, a fresh perturbation per batch): its gradients start empty every time.
    steps = [c for c in steps if not _fresh_each_iteration(loop, _stepped(c, env, ev), ev)]
    if not steps:
        return
    if _may_clear_grads(loop, env, ev):
        return
    step = steps[0]
    opt = _stepped(step, env, ev)
    assert opt is not None  # a step of the list above
    # The backward whose gradients this step applies: the last one before it (the first if none).
    before = [b for b in backwards if (b.lineno, b.col_offset) < (step.lineno, step.col_offset)]
    first_backward = before[-1] if before else backwards[0]
    # The clear belongs once per iteration of the loop that steps, before the statement of its body
    # that holds the backward: in front of an inner loop that accumulates over micro-batches, not
    # inside it (that would keep only the last micro-batch's gradients).
    step_loop = _innermost_loop(loop, step)
    anchor = _inner_loop_around(step_loop, first_backward) or _stmt_of(loop, first_backward)
    early = _clear_before(rep, step_loop, opt) if anchor is not None else None
    rep.publish(GradientsNeverCleared(step, opt, _stmt_of(loop, first_backward), early, anchor))


def _bodies(stmt: ast.stmt) -> Iterator[list[ast.stmt]]:
    for field in ("body", "orelse", "finalbody"):
        inner = getattr(stmt, field, None)
        if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
            yield inner
    for handler in getattr(stmt, "handlers", ()) or ():
        yield handler.body


def _holds(stmt: ast.stmt, node: ast.AST) -> bool:
    line = getattr(node, "lineno", 0)
    return stmt.lineno <= line <= (stmt.end_lineno or stmt.lineno) and any(n is node for n in ast.walk(stmt))


def _innermost_loop(loop: ast.For | ast.While | ast.AsyncFor, node: ast.AST) -> ast.AST:
    """The innermost loop, ``loop`` or one nested in it (not in a nested function), holding ``node``."""
    found: ast.AST = loop
    stmts = list(loop.body)
    while True:
        holder = next((s for s in stmts if _holds(s, node)), None)
        if holder is None or isinstance(holder, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return found
        if isinstance(holder, (ast.For, ast.AsyncFor, ast.While)):
            found = holder
        stmts = [s for block in _bodies(holder) for s in block]


def _inner_loop_around(loop: ast.AST, node: ast.AST) -> ast.stmt | None:
    """The outermost loop nested in ``loop`` (not in a nested function) that holds ``node``."""
    stmts = list(getattr(loop, "body", []))
    while True:
        holder = next((s for s in stmts if _holds(s, node)), None)
        if holder is None or isinstance(holder, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return None
        if isinstance(holder, (ast.For, ast.AsyncFor, ast.While)):
            return holder
        stmts = [s for block in _bodies(holder) for s in block]


def _clear_before(rep: Reporter, loop: ast.AST, opt: ast.expr) -> ast.stmt | None:
    """`opt.zero_grad()` as a statement before the loop, in the block that holds it: a clear that
    runs once, where one per iteration was meant."""
    block = rep.blocks.get(id(loop))
    if not block:
        return None
    index = next((i for i, s in enumerate(block) if s is loop), None)
    if index is None:
        return None
    for stmt in reversed(block[:index]):
        call = stmt.value if isinstance(stmt, ast.Expr) else None
        if (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and call.func.attr == "zero_grad"
            and _same(call.func.value, opt)
        ):
            return stmt
    return None


_HARMLESS_MODULES = ("torch", "numpy", "math", "time", "logging", "random", "builtins", "os", "sys")


def _mentions_grads(func: object) -> bool:
    """May this function clear gradients: does it call `zero_grad`, or do more with a `.grad`
    than read it (`p.grad.norm()`, `p.grad is not None` read; `p.grad = None`, `p.grad.zero_()`,
    `p.grad.data[...] = 0`, `del p.grad`, `g = p.grad`, `f(p.grad)` may clear)?"""
    if not isinstance(func, ast.AST):
        return False
    known = _CLEARS_CACHE.get(id(func))
    if known is not None and known[0] is func:
        return known[1]
    nodes = list(ast.walk(func))
    reads: set[int] = set()  # the `.grad` (and `.grad.data`) nodes that are only read
    for node in nodes:
        if isinstance(node, ast.Compare):
            reads.update(id(n) for n in (node.left, *node.comparators))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr not in _GRAD_READS:
                continue
            recv = node.func.value
            reads.add(id(recv))
            if isinstance(recv, ast.Attribute) and recv.attr == "data":
                reads.add(id(recv.value))
    found = any(
        isinstance(n, ast.Attribute)
        and (n.attr == "zero_grad" or n.attr == "grad" and not (id(n) in reads and _loaded(n)))
        for n in nodes
    )
    if len(_CLEARS_CACHE) > 4096:
        _CLEARS_CACHE.clear()
    _CLEARS_CACHE[id(func)] = (func, found)
    return found


def _loaded(node: ast.Attribute) -> bool:
    return isinstance(node.ctx, ast.Load)


# id of a function -> (the function, may it clear gradients); the function is kept so ids stay its.
_CLEARS_CACHE: dict[int, tuple[ast.AST, bool]] = {}
# Methods of a gradient that read it and make a new value, changing nothing.
_GRAD_READS = frozenset({"norm", "abs", "sum", "mean", "max", "min", "clone", "detach", "item", "pow", "cpu"})


def _may_clear_grads(loop: ast.AST, env: dict[str, Val], ev: Evaluator, depth: int = 0) -> bool:
    """Could code the loop calls, that we cannot see into, clear gradients? A function of this file
    is looked into, its parameters bound to the call's arguments (a few levels deep)."""

    for call in ast.walk(loop):
        if not isinstance(call, ast.Call):
            continue
        func = call.func
        root = func
        while isinstance(root, ast.Attribute):
            root = root.value
        root_val = _resolve(root, env, ev) if isinstance(root, ast.Name) else None
        trusted = (
            root_val is not None
            and root_val.ty is Ty.QUAL
            and (root_val.qual or "").split(".")[0] in (_HARMLESS_MODULES)
        )
        if isinstance(func, ast.Name):
            val = _resolve(func, env, ev)
            if val is None or val.ty is Ty.UNKNOWN:
                if func.id not in api.HARMLESS_BUILTINS:
                    return True
            elif val.ty is Ty.FUNC and _mentions_grads(val.info):
                return True
            elif val.ty is Ty.FUNC and isinstance(val.info, ast.FunctionDef) and depth < 3:
                if _may_clear_grads(val.info, _bind(val.info, call, env, ev), ev, depth + 1):
                    return True
                continue  # looked into: what it does with its arguments is known
            elif val.ty is Ty.QUAL and not trusted:
                return True
        elif isinstance(func, ast.Attribute) and root_val is not None and root_val.module is not None:
            cls = root_val.module.user_class
            if cls is not None and _mentions_grads(cls.methods.get(func.attr)):
                return True
        if trusted:
            continue
        # Handing the optimizer or a model to code we cannot see: it may zero their gradients.
        for arg in [*call.args, *(k.value for k in call.keywords)]:
            val = _resolve(arg, env, ev)
            if val is not None and val.ty in (Ty.OPTIMIZER, Ty.MODULE):
                return True
    return False


def _bind(func: ast.FunctionDef, call: ast.Call, env: dict[str, Val], ev: Evaluator) -> dict[str, Val]:
    """The names a function of this file sees when this call runs it: its parameters bound to the
    call's arguments where they are plain (no ``*args``/``**kwargs``), the rest unknown."""
    params = [*func.args.posonlyargs, *func.args.args]
    bound: dict[str, Val] = {p.arg: Val() for p in [*params, *func.args.kwonlyargs]}
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return bound
    for p, a in zip(params, call.args, strict=False):
        bound[p.arg] = _resolve(a, env, ev) or Val()
    for k in call.keywords:
        if k.arg in bound:
            bound[k.arg] = _resolve(k.value, env, ev) or Val()
    return bound


def _dead(call: ast.Call, ev: Evaluator) -> bool:
    """Is ``call`` in an arm of an `if` that a known test always skipped? (The loop holding it ran,
    so such an `if` is inside the loop.)"""
    return any(n is call for arm in ev.dead_arms() for stmt in arm for n in ast.walk(stmt))


def _stmt_of(loop: ast.AST, call: ast.Call) -> ast.stmt | None:
    for node in ast.walk(loop):
        if isinstance(node, ast.Expr) and node.value is call:
            return node
    return None


def _method_statements(block: list[ast.stmt]) -> list[tuple[int, ast.stmt, ast.expr, str]]:
    """``recv.method(...)`` expression statements of a block: (index, statement, receiver, method)."""
    out: list[tuple[int, ast.stmt, ast.expr, str]] = []
    for i, stmt in enumerate(block):
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            func = stmt.value.func
            if isinstance(func, ast.Attribute):
                out.append((i, stmt, func.value, func.attr))
    return out


def _backward_loop_before(
    block: list[ast.stmt], index: int, calls: list[tuple[int, ast.stmt, ast.expr, str]], ev: Evaluator
) -> list[tuple[int, ast.stmt]]:
    """A `for` loop before statement ``index`` of the block that certainly runs (a `range` of known,
    positive length) and backpropagates in every iteration without stepping: the last iteration's
    gradients are what a `zero_grad()` after it throws away (refinement steps, then clear, then
    step). Its backward statement, as one of the block's; else nothing."""
    for j in range(index - 1, -1, -1):
        stmt = block[j]
        if any(j < k < index and name in ("step", "backward") for k, _, _, name in calls):
            return []  # something between it and the clear
        if not isinstance(stmt, ast.For):
            continue
        length = ev.range_length(stmt.iter)
        if length is None or length < 1 or stmt.orelse:
            return []
        inner = _method_statements(stmt.body)
        if any(name == "step" for _, _, _, name in inner) or _STEP_TEXT.search(ast.unparse(stmt)):
            return []
        if any(isinstance(n, ast.Break | ast.Continue | ast.Return | ast.Raise) for n in ast.walk(stmt)):
            return []  # an iteration may stop before its backward
        found = [st for _, st, _, name in inner if name == "backward"]
        return [(j, found[-1])] if found else []
    return []


_STEP_TEXT = re.compile(r"\.step\(|zero_grad\(")


def check_misplaced(rep: Reporter, scope: ast.AST, ev: Evaluator) -> None:
    """backward; zero_grad; step in a function (or module code) not in a loop: wrong on every call
    (a `backward_and_step(loss, optimizer)` helper), whoever loops over it. (Loops of the function
    are checked as loops, with what their names hold.)"""
    _misplaced(rep, scope, {}, ev, into_loops=False)


def _misplaced(
    rep: Reporter, loop: ast.AST, env: dict[str, Val], ev: Evaluator, into_loops: bool = True
) -> None:
    """backward; zero_grad; step in one straight run of statements: the step sees zeros."""
    for node in [loop, *_statements(list(getattr(loop, "body", [])), into_loops)]:
        for block in (getattr(node, "body", None), getattr(node, "orelse", None)):
            if not isinstance(block, list):
                continue
            calls = _method_statements(block)
            for i, zstmt, zrecv, zname in calls:
                if zname != "zero_grad":
                    continue
                backward = [(j, st) for j, st, _, name in calls if j < i and name == "backward"]
                if not backward:
                    backward = _backward_loop_before(block, i, calls, ev)
                steps = [
                    (j, st, recv)
                    for j, st, recv, name in calls
                    if j > i
                    and name == "step"
                    and not (st.value.args or st.value.keywords)  # type: ignore[attr-defined]
                    and _zeroes_for(zrecv, recv, env, ev)
                ]
                if not backward or not steps:
                    continue
                step_index, step_stmt, opt = steps[0]
                # A backward between the zero_grad and the step refills the gradients (also one in
                # a loop or a branch there: micro-batches after an input-gradient pass, GradCache).
                if any(_backpropagates(stmt) for stmt in block[i + 1 : step_index]):
                    continue
                rep.publish(ZeroGradBetween(zstmt, opt, backward[-1][1], step_stmt))


def _backpropagates(stmt: ast.stmt) -> bool:
    """Does the statement hold a backward (`x.backward(...)`, `torch.autograd.backward(...)`)?"""
    return any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "backward"
        for n in ast.walk(stmt)
    )


def _zeroes_for(zero_recv: ast.expr, opt: ast.expr, env: dict[str, Val], ev: Evaluator) -> bool:
    """Does ``zero_recv.zero_grad()`` clear the gradients ``opt.step()`` uses? The same optimizer
    (a name or ``self.optimizer``; one not known, such as a parameter, zeroed then stepped is an
    optimizer too), or a model whose parameters that optimizer holds."""
    val = _resolve(opt, env, ev)
    if isinstance(opt, ast.Name):
        val = val or Val()
    elif not isinstance(opt, ast.Attribute):
        return False
    if _same(zero_recv, opt):
        return val is None or val.ty in (Ty.OPTIMIZER, Ty.UNKNOWN)
    if val is None or val.ty is not Ty.OPTIMIZER:
        return False
    zero_val = _resolve(zero_recv, env, ev)
    return bool(
        zero_val is not None
        and zero_val.module is not None
        and val.info is not None
        and zero_val.module in getattr(val.info, "modules", ())
    )
