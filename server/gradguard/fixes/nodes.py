"""Building libcst nodes: statements from text, parentheses, placeholders."""

from __future__ import annotations

import textwrap

import libcst as cst

from gradguard.fixes.locate import Stale

PLACEHOLDER = "__gradguard_expr__"

# Expressions that a trailer (`.x`, `(...)`, `[...]`) binds to as a whole. An int
# literal is not one of them: `1.detach()` is a syntax error.
_ATOMS = (
    cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.SimpleString, cst.FormattedString,
    cst.Float, cst.Imaginary, cst.List, cst.Dict, cst.Set, cst.ListComp, cst.SetComp,
    cst.DictComp, cst.Ellipsis,
)  # fmt: skip


def is_atom(expr: cst.BaseExpression) -> bool:
    return bool(expr.lpar) or isinstance(expr, _ATOMS)


def parenthesize(expr: cst.BaseExpression) -> cst.BaseExpression:
    return expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def parse_statements(text: str) -> list[cst.BaseStatement]:
    """Statements from unindented (or uniformly indented) text; comments above them are kept."""
    if not isinstance(text, str) or not text.strip():
        raise Stale("no text")
    body = textwrap.dedent(text).strip("\r\n")
    module = cst.parse_module(body + "\n")
    stmts: list[cst.BaseStatement] = list(module.body)
    if not stmts:
        raise Stale("text holds no statement")
    if module.header:
        stmts[0] = stmts[0].with_changes(
            leading_lines=[*module.header, *getattr(stmts[0], "leading_lines", ())]
        )
    return stmts


def parse_expression(text: str) -> cst.BaseExpression:
    if not isinstance(text, str) or not text.strip():
        raise Stale("no expression")
    return cst.parse_expression(text.strip())


class Substitute(cst.CSTTransformer):
    """Puts an expression in place of the placeholder name in a template."""

    def __init__(self, expr: cst.BaseExpression) -> None:
        super().__init__()
        self.expr = expr

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.BaseExpression:
        return self.expr if original_node.value == PLACEHOLDER else updated_node


def trailer_template(suffix: str) -> cst.BaseExpression:
    """``PLACEHOLDER + suffix`` parsed; the suffix must only add trailers to the placeholder."""
    if not isinstance(suffix, str) or not suffix.strip():
        raise Stale("no suffix")
    template = cst.parse_expression(PLACEHOLDER + suffix)
    node: cst.BaseExpression = template
    while not isinstance(node, cst.Name):
        if isinstance(node, cst.Call):
            node = node.func
        elif isinstance(node, (cst.Attribute, cst.Subscript)):
            node = node.value
        else:
            raise Stale(f"suffix {suffix!r} is not a trailer")
    if node.value != PLACEHOLDER or template is node:
        raise Stale(f"suffix {suffix!r} is not a trailer")
    return template


def is_reference(expr: cst.BaseExpression) -> bool:
    """A name or a dotted attribute of a name (`y`, `self.h`): safe to assign to and to re-read."""
    while isinstance(expr, cst.Attribute):
        if expr.lpar:
            return False
        expr = expr.value
    return isinstance(expr, cst.Name) and not expr.lpar


def strip_data(expr: cst.BaseExpression) -> cst.BaseExpression:
    """`y.data` -> `y`."""
    if isinstance(expr, cst.Attribute) and expr.attr.value == "data" and not expr.lpar:
        return expr.value
    return expr
