"""The fix primitives: each reads a FixRef's params and adds its changes to a Plan."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, cast

import libcst as cst

from gradguard.fixes.locate import Stale
from gradguard.fixes.nodes import (
    Substitute,
    is_atom,
    is_reference,
    parenthesize,
    parse_expression,
    parse_statements,
    strip_data,
    trailer_template,
)
from gradguard.fixes.plan import Moved, Plan

Params = Mapping[str, Any]


def _append(plan: Plan, params: Params) -> None:
    node = plan.index.expr(params["expr"])
    template = trailer_template(params["suffix"])

    def build(updated: cst.CSTNode) -> cst.CSTNode:
        assert isinstance(updated, cst.BaseExpression)
        base = updated if is_atom(updated) else parenthesize(updated)
        return cast(cst.CSTNode, template.visit(Substitute(base)))

    plan.rewrite(node, build)


def _unwrap(plan: Plan, params: Params) -> None:
    node = plan.index.call(params["expr"])
    if not isinstance(node.func, cst.Attribute):
        raise Stale("not a method call")

    def build(updated: cst.CSTNode) -> cst.CSTNode:
        assert isinstance(updated, cst.Call) and isinstance(updated.func, cst.Attribute)
        value = updated.func.value
        # Parentheses around the whole call stay around what is left of it.
        return value.with_changes(lpar=[*updated.lpar, *value.lpar], rpar=[*value.rpar, *updated.rpar])

    plan.rewrite(node, build)


def _keyword_index(call: cst.Call, name: str) -> int | None:
    for i, arg in enumerate(call.args):
        if arg.keyword is not None and arg.keyword.value == name:
            return i
    return None


def _line_end(
    layout: cst.BaseParenthesizableWhitespace, keep: cst.BaseParenthesizableWhitespace | None
) -> cst.BaseParenthesizableWhitespace:
    """Whitespace after a comma: the line break and indentation of ``layout``, the
    end-of-line comment (and blank lines) of ``keep`` (none when ``keep`` is None)."""
    if isinstance(layout, cst.ParenthesizedWhitespace):
        if isinstance(keep, cst.ParenthesizedWhitespace):
            return layout.with_changes(first_line=keep.first_line, empty_lines=keep.empty_lines)
        return layout.with_changes(first_line=cst.TrailingWhitespace(), empty_lines=[])
    if isinstance(keep, cst.ParenthesizedWhitespace):
        return keep.with_changes(indent=False, last_line=cst.SimpleWhitespace(""))
    if keep is None or (isinstance(layout, cst.SimpleWhitespace) and layout.value):
        return layout
    return cst.SimpleWhitespace(" ")


def _set_keyword(plan: Plan, params: Params) -> None:
    node = plan.index.call(params["call"])
    name = str(params["name"])
    if not name.isidentifier():
        raise Stale(f"bad keyword {name!r}")
    value = parse_expression(params["value"])

    def build(updated: cst.CSTNode) -> cst.CSTNode:
        assert isinstance(updated, cst.Call)
        args = list(updated.args)
        at = _keyword_index(updated, name)
        if at is not None:
            args[at] = args[at].with_changes(value=value)
            return updated.with_changes(args=args)
        new = cst.Arg(
            value=value,
            keyword=cst.Name(name),
            equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")),
        )
        if args:
            last = args[-1]
            if isinstance(last.comma, cst.Comma):
                # Trailing-comma style (often one argument per line): the new argument
                # takes the trailing comma and the layout between arguments is repeated.
                between = updated.whitespace_before_args
                if len(args) > 1 and isinstance(args[-2].comma, cst.Comma):
                    between = args[-2].comma.whitespace_after
                closing = last.comma.whitespace_after
                new = new.with_changes(
                    comma=last.comma.with_changes(whitespace_after=_line_end(closing, None))
                )
                args[-1] = last.with_changes(
                    comma=last.comma.with_changes(whitespace_after=_line_end(between, closing))
                )
            else:
                new = new.with_changes(whitespace_after_arg=last.whitespace_after_arg)
                args[-1] = last.with_changes(
                    comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")),
                    whitespace_after_arg=cst.SimpleWhitespace(""),
                )
        return updated.with_changes(args=[*args, new])

    plan.rewrite(node, build)


def _drop_keyword(plan: Plan, params: Params) -> None:
    node = plan.index.call(params["call"])
    name = str(params["name"])
    if _keyword_index(node, name) is None:
        raise Stale(f"no keyword {name!r}")

    def build(updated: cst.CSTNode) -> cst.CSTNode:
        assert isinstance(updated, cst.Call)
        at = _keyword_index(updated, name)
        if at is None:
            raise Stale(f"no keyword {name!r}")
        args = list(updated.args)
        gone = args.pop(at)
        if not args:
            return updated.with_changes(args=[], whitespace_before_args=cst.SimpleWhitespace(""))
        if at == len(args) and isinstance(gone.comma, cst.Comma) and isinstance(args[-1].comma, cst.Comma):
            # The dropped argument was last with a trailing comma: the new last keeps its
            # own comma and comment, and ends the way the dropped one did.
            comma = args[-1].comma
            ending = _line_end(gone.comma.whitespace_after, comma.whitespace_after)
            args[-1] = args[-1].with_changes(comma=comma.with_changes(whitespace_after=ending))
        elif at == len(args):
            # The dropped argument was last with no trailing comma: neither is the new last.
            args[-1] = args[-1].with_changes(
                comma=cst.MaybeSentinel.DEFAULT, whitespace_after_arg=gone.whitespace_after_arg
            )
        return updated.with_changes(args=args)

    plan.rewrite(node, build)


def _remove_stmt(plan: Plan, params: Params) -> None:
    plan.consume(plan.index.stmt(params["stmt"]), "remove")


def _replace_stmt(plan: Plan, params: Params) -> None:
    key = plan.index.stmt(params["stmt"])
    plan.consume(key, "replace")
    plan.replaced[key] = parse_statements(params["text"])


def _insert_before(plan: Plan, params: Params) -> None:
    anchor = plan.index.stmt(params["anchor"])
    plan.before.setdefault(anchor, []).extend(parse_statements(params["text"]))


def _insert_after(plan: Plan, params: Params) -> None:
    anchor = plan.index.stmt(params["anchor"])
    plan.after.setdefault(anchor, []).extend(parse_statements(params["text"]))


def _insert_loop_top(plan: Plan, params: Params) -> None:
    loop = plan.index.loop(params["loop"])
    plan.top.setdefault(loop, []).extend(parse_statements(params["text"]))


def _move(where: str) -> Callable[[Plan, Params], None]:
    def move(plan: Plan, params: Params) -> None:
        stmt = plan.index.stmt(params["stmt"])
        anchor = plan.index.stmt(params["anchor"])
        if plan.index.inside(anchor, stmt):
            raise Stale("anchor inside the moved statement")
        plan.consume(stmt, "move")
        target = plan.before if where == "before" else plan.after
        target.setdefault(anchor, []).append(Moved(stmt))

    return move


def _move_into_loop(plan: Plan, params: Params) -> None:
    loop = plan.index.loop(params["loop"])
    spans = params["stmts"]
    if not isinstance(spans, list) or not spans:
        raise Stale("no statements to move")
    for raw in spans:
        stmt = plan.index.stmt(raw)
        if plan.index.inside(loop, stmt):
            raise Stale("loop inside the moved statement")
        plan.consume(stmt, "move")
        plan.top.setdefault(loop, []).append(Moved(stmt))


def _wrap_with(plan: Plan, params: Params) -> None:
    key = plan.index.stmt(params["stmt"])
    header = params["header"]
    if not isinstance(header, str) or "\n" in header.strip():
        raise Stale("bad header")
    stmts = parse_statements(header.strip() + "\n    pass\n")
    template = stmts[0]
    if len(stmts) != 1 or not isinstance(template, cst.BaseCompoundStatement):
        raise Stale("header does not open a block")
    plan.consume(key, "wrap")
    plan.wrapped[key] = template


# Trailing-underscore methods with no out-of-place twin of the same meaning.
_NO_OUT_OF_PLACE = frozenset({
    "zero_", "fill_", "copy_", "requires_grad_", "detach_", "set_", "resize_", "resize_as_",
    "share_memory_", "uniform_", "normal_", "random_", "exponential_", "geometric_", "cauchy_",
    "log_normal_", "bernoulli_", "fill_diagonal_", "apply_", "map_", "map2_", "retain_grad_",
})  # fmt: skip

_AUG_OPS: dict[type, type] = {
    cst.AddAssign: cst.Add,
    cst.SubtractAssign: cst.Subtract,
    cst.MultiplyAssign: cst.Multiply,
    cst.DivideAssign: cst.Divide,
}


def _binds_tighter(expr: cst.BaseExpression) -> bool:
    """Whether ``expr`` can stand unparenthesised right of `+ - * /`."""
    if is_atom(expr) or isinstance(expr, (cst.UnaryOperation, cst.Integer, cst.Await)):
        return True
    return isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Power)


def assign_target(expr: cst.BaseExpression) -> cst.BaseAssignTargetExpression:
    if not isinstance(expr, cst.BaseAssignTargetExpression):
        raise Stale("not assignable")
    return expr


def _clone_before(plan: Plan, key: cst.CSTNode, subscript: cst.BaseExpression) -> None:
    if not isinstance(subscript, cst.Subscript):
        raise Stale("not an indexed assignment")
    base = strip_data(subscript.value)
    if not is_reference(base):
        raise Stale("indexed value is not a plain name")
    code = plan.index.module.code_for_node(base)
    plan.before.setdefault(key, []).extend(parse_statements(f"{code} = {code}.clone()"))


def _rebound_out_of_place(plan: Plan, key: cst.CSTNode, target: cst.BaseExpression, params: Params) -> bool:
    """Is the in-place change of ``target`` rewritten as a rebinding? Part of a tensor (`y[i]`) is
    written into a copy instead (planned here); an element of a list or dict (``element``) and a
    plain name are rebound; anything else has no fix."""
    if isinstance(target, cst.Subscript):
        if params.get("element"):
            return True
        _clone_before(plan, key, target)
        return False
    if not is_reference(target):
        raise Stale("in-place target is not a plain name")
    return True


def _rewrite_inplace(plan: Plan, params: Params) -> None:
    key = plan.index.stmt(params["stmt"])
    call = key.value if isinstance(key, cst.Expr) else None
    if isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute):
        method = call.func.attr.value
        if not method.endswith("_") or method.startswith("_") or method in _NO_OUT_OF_PLACE:
            raise Stale(f"{method} has no out-of-place form")
        owner = strip_data(call.func.value)
        if not _rebound_out_of_place(plan, key, owner, params):
            return

        def build_call(updated: cst.CSTNode) -> cst.CSTNode:
            assert isinstance(updated, cst.Expr) and isinstance(updated.value, cst.Call)
            new_call = updated.value
            assert isinstance(new_call.func, cst.Attribute)
            target = strip_data(new_call.func.value)
            func = new_call.func.with_changes(value=target.deep_clone(), attr=cst.Name(method[:-1]))
            return cst.Assign(
                targets=[cst.AssignTarget(assign_target(target))],
                value=new_call.with_changes(func=func),
                semicolon=updated.semicolon,
            )

        plan.rewrite(key, build_call)
        return
    if isinstance(key, cst.AugAssign) and type(key.operator) in _AUG_OPS:
        target = strip_data(key.target)
        if not _rebound_out_of_place(plan, key, target, params):
            return
        op_type = _AUG_OPS[type(key.operator)]

        def build_aug(updated: cst.CSTNode) -> cst.CSTNode:
            assert isinstance(updated, cst.AugAssign)
            name = strip_data(updated.target)
            op = cast(Any, updated.operator)  # every augmented operator has both whitespaces
            value = updated.value if _binds_tighter(updated.value) else parenthesize(updated.value)
            space = cst.SimpleWhitespace(" ")
            return cst.Assign(
                targets=[
                    cst.AssignTarget(
                        assign_target(name),
                        whitespace_before_equal=op.whitespace_before,
                        whitespace_after_equal=op.whitespace_after,
                    )
                ],
                value=cst.BinaryOperation(name.deep_clone(), op_type(space, space), value),
                semicolon=updated.semicolon,
            )

        plan.rewrite(key, build_aug)
        return
    if isinstance(key, cst.Assign) and len(key.targets) == 1:
        _clone_before(plan, key, key.targets[0].target)
        return
    raise Stale("not an in-place statement")


def _multi(plan: Plan, params: Params) -> None:
    parts = params["parts"]
    if not isinstance(parts, list) or not parts:
        raise Stale("no parts")
    for part in parts:
        if not isinstance(part, Mapping):
            raise Stale("bad part")
        build(plan, str(part["kind"]), part.get("params") or {})


PRIMITIVES: dict[str, Callable[[Plan, Params], None]] = {
    "append": _append,
    "unwrap": _unwrap,
    "set-keyword": _set_keyword,
    "drop-keyword": _drop_keyword,
    "remove-stmt": _remove_stmt,
    "replace-stmt": _replace_stmt,
    "insert-before": _insert_before,
    "insert-after": _insert_after,
    "insert-loop-top": _insert_loop_top,
    "move-before": _move("before"),
    "move-after": _move("after"),
    "move-into-loop": _move_into_loop,
    "wrap-with": _wrap_with,
    "rewrite-inplace": _rewrite_inplace,
    "multi": _multi,
}


def build(plan: Plan, kind: str, params: Params) -> None:
    """Add the changes of one primitive to ``plan``; raises Stale when it does not apply."""
    primitive = PRIMITIVES.get(kind)
    if primitive is None:
        raise Stale(f"unknown fix kind {kind!r}")
    if not isinstance(params, Mapping):
        raise Stale("params is not a mapping")
    primitive(plan, params)
