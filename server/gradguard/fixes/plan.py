"""A plan of tree changes, gathered from one or more primitives and applied in one libcst pass.

Keys are nodes of the parsed (original) tree. Expression and small-statement
rewrites happen where the node is left; statement-level changes (remove, replace,
insert, move, wrap) happen when the enclosing block is left, so every block is
rebuilt at most once and several primitives compose (``multi``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import libcst as cst

from gradguard.fixes.locate import Index, Stale

from ..record import field, record

Rewrite = Callable[[cst.CSTNode], cst.CSTNode]


@record(frozen=True)
class Moved:
    """A placeholder for a statement moved here from elsewhere in the file."""

    key: cst.CSTNode


Item = cst.BaseStatement | Moved


@record
class Plan:
    index: Index
    rewrites: dict[cst.CSTNode, list[Rewrite]] = field(default_factory=dict)
    removed: set[cst.CSTNode] = field(default_factory=set)
    moved: set[cst.CSTNode] = field(default_factory=set)
    replaced: dict[cst.CSTNode, list[cst.BaseStatement]] = field(default_factory=dict)
    wrapped: dict[cst.CSTNode, cst.BaseCompoundStatement] = field(default_factory=dict)
    before: dict[cst.CSTNode, list[Item]] = field(default_factory=dict)
    after: dict[cst.CSTNode, list[Item]] = field(default_factory=dict)
    top: dict[cst.CSTNode, list[Item]] = field(default_factory=dict)

    def rewrite(self, node: cst.CSTNode, fn: Rewrite) -> None:
        self.rewrites.setdefault(node, []).append(fn)

    def consume(self, key: cst.CSTNode, kind: str) -> None:
        """Mark a statement as removed, moved or replaced; a statement is consumed once."""
        if key in self.removed or key in self.moved or key in self.replaced or key in self.wrapped:
            raise Stale("two changes to one statement")
        if kind == "remove":
            self.removed.add(key)
        elif kind == "move":
            self.moved.add(key)

    def check(self) -> None:
        """Reject plans whose changes overlap: an edit inside a statement that is removed or moved."""
        gone = self.removed | self.moved | set(self.replaced)
        if not gone:
            return
        inner_targets: list[cst.CSTNode] = [*self.rewrites, *self.wrapped, *self.top]
        structural = [*self.before, *self.after, *self.top, *self.wrapped, *gone]
        for key in gone:
            for node in inner_targets:
                if self.index.inside(node, key):
                    raise Stale("an edit inside a statement that is removed or moved")
            for node in structural:
                if node is not key and self.index.inside(node, key):
                    raise Stale("an edit inside a statement that is removed or moved")

    def apply(self) -> cst.Module:
        self.check()
        result = self.index.module.visit(_Applier(self))
        if not isinstance(result, cst.Module):
            raise Stale("module removed")
        return result


def leading(stmt: cst.BaseStatement) -> list[cst.EmptyLine]:
    """The comment and blank lines above a statement (both statement kinds own them)."""
    lines: Sequence[cst.EmptyLine] = getattr(stmt, "leading_lines", ())
    return list(lines)


def _carried(lines: Sequence[cst.EmptyLine]) -> int:
    """How many comment lines directly above a statement travel with it when it moves."""
    n = 0
    for line in reversed(lines):
        if line.comment is None:
            break
        n += 1
    return n


def _no_semicolon(stmt: cst.BaseSmallStatement) -> cst.BaseSmallStatement:
    return stmt.with_changes(semicolon=cst.MaybeSentinel.DEFAULT)


def _line_units(
    keys: Sequence[cst.BaseSmallStatement],
    line: cst.SimpleStatementLine | cst.SimpleStatementSuite,
) -> list[tuple[cst.CSTNode, cst.SimpleStatementLine]]:
    """Split a line of small statements into one line per statement (comments stay at the ends)."""
    units: list[tuple[cst.CSTNode, cst.SimpleStatementLine]] = []
    last = len(line.body) - 1
    for i, (key, small) in enumerate(zip(keys, line.body, strict=True)):
        leading = line.leading_lines if i == 0 and isinstance(line, cst.SimpleStatementLine) else ()
        trailing = line.trailing_whitespace if i == last else cst.TrailingWhitespace()
        unit = cst.SimpleStatementLine(
            body=[_no_semicolon(small)], leading_lines=leading, trailing_whitespace=trailing
        )
        units.append((key, unit))
    return units


class _Applier(cst.CSTTransformer):
    def __init__(self, plan: Plan) -> None:
        super().__init__()
        self.plan = plan
        self.stmt_targets: set[cst.CSTNode] = {
            *plan.removed,
            *plan.moved,
            *plan.replaced,
            *plan.wrapped,
            *plan.before,
            *plan.after,
        }
        # A loop written on one line needs an indented body to take new statements.
        self.expand: set[cst.CSTNode] = {
            loop.body for loop in plan.top if isinstance(loop, (cst.For, cst.While))
        }

    # -- moved statements -------------------------------------------------

    def _moved_unit(self, key: cst.CSTNode) -> cst.BaseStatement:
        index = self.plan.index
        if isinstance(key, cst.BaseCompoundStatement):
            unit: cst.BaseStatement = key
        else:
            line = index.parent.get(key)
            if isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1:
                unit = line
            elif isinstance(line, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
                unit = dict(_line_units(list(line.body), line))[key]
            else:
                raise Stale("moved statement has no line")
        lines = leading(unit)
        kept = _carried(lines)
        return unit.with_changes(leading_lines=lines[len(lines) - kept :] if kept else [])

    def _resolve(self, items: Sequence[Item]) -> list[cst.BaseStatement]:
        return [self._moved_unit(item.key) if isinstance(item, Moved) else item for item in items]

    # -- blocks -----------------------------------------------------------

    def _units(
        self, original: Sequence[cst.BaseStatement], updated: Sequence[cst.BaseStatement]
    ) -> list[tuple[cst.CSTNode, cst.BaseStatement]]:
        units: list[tuple[cst.CSTNode, cst.BaseStatement]] = []
        for orig, new in zip(original, updated, strict=True):
            if isinstance(orig, cst.SimpleStatementLine) and isinstance(new, cst.SimpleStatementLine):
                if len(orig.body) == 1:
                    units.append((orig.body[0], new))
                elif any(s in self.stmt_targets for s in orig.body):
                    units.extend(_line_units(list(orig.body), new))
                else:
                    units.append((orig, new))
            else:
                units.append((orig, new))
        return units

    def _rebuild(
        self, units: Sequence[tuple[cst.CSTNode, cst.BaseStatement]]
    ) -> tuple[list[cst.BaseStatement], list[cst.EmptyLine]]:
        """The new statements of a block, and comment/blank lines left over at its end."""
        plan = self.plan
        out: list[cst.BaseStatement] = []
        pending: list[cst.EmptyLine] = []
        for key, unit in units:
            own = leading(unit)
            if key in plan.moved:
                own = own[: len(own) - _carried(own)]
            lead = pending + own
            pending = []
            group = self._resolve(plan.before.get(key, []))
            if key in plan.removed or key in plan.moved:
                pass
            elif key in plan.replaced:
                group += _replacement(unit, plan.replaced[key])
            elif key in plan.wrapped:
                group.append(_wrap(unit, plan.wrapped[key]))
            else:
                group.append(unit.with_changes(leading_lines=[]))
            group += self._resolve(plan.after.get(key, []))
            if not group:
                pending = lead
                continue
            group[0] = group[0].with_changes(leading_lines=[*lead, *leading(group[0])])
            out.extend(group)
        return out, pending

    def _block(self, original: cst.IndentedBlock, updated: cst.IndentedBlock) -> cst.IndentedBlock:
        units = self._units(original.body, updated.body)
        if not any(key in self.stmt_targets for key, _ in units):
            return updated
        body, pending = self._rebuild(units)
        if not body:
            # A block left empty gets `pass`, which keeps the comments above the removed code.
            return updated.with_changes(body=[cst.SimpleStatementLine([cst.Pass()], leading_lines=pending)])
        return updated.with_changes(body=body, footer=[*pending, *updated.footer])

    def _suite(self, original: cst.SimpleStatementSuite, updated: cst.SimpleStatementSuite) -> cst.BaseSuite:
        if original not in self.expand and not any(s in self.stmt_targets for s in original.body):
            return updated
        units: list[tuple[cst.CSTNode, cst.BaseStatement]] = list(_line_units(list(original.body), updated))
        body, pending = self._rebuild(units)
        if original not in self.expand and len(body) <= len(units) and not pending:
            # Nothing was added: the body can stay on the header's line (`if done: pass`).
            smalls: list[cst.BaseSmallStatement] = []
            for stmt in body:
                if not isinstance(stmt, cst.SimpleStatementLine) or stmt.leading_lines:
                    break
                if stmt is not body[-1] and stmt.trailing_whitespace.comment is not None:
                    break
                smalls.extend(_no_semicolon(s) for s in stmt.body)
            else:
                smalls = smalls or [cst.Pass()]
                semi = cst.Semicolon(whitespace_after=cst.SimpleWhitespace(" "))
                smalls = [s.with_changes(semicolon=semi) for s in smalls[:-1]] + smalls[-1:]
                last = body[-1] if body else None
                trailing = (
                    last.trailing_whitespace
                    if isinstance(last, cst.SimpleStatementLine)
                    else updated.trailing_whitespace
                )
                return updated.with_changes(body=smalls, trailing_whitespace=trailing)
        if not body:
            body = [cst.SimpleStatementLine([cst.Pass()], leading_lines=pending)]
            pending = []
        return cst.IndentedBlock(body=body, footer=pending)

    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode) -> cst.CSTNode:  # type: ignore[override]
        result = updated_node
        for fn in self.plan.rewrites.get(original_node, ()):
            result = fn(result)
        if isinstance(original_node, cst.IndentedBlock) and isinstance(result, cst.IndentedBlock):
            result = self._block(original_node, result)
        elif isinstance(original_node, cst.SimpleStatementSuite):
            if isinstance(result, cst.SimpleStatementSuite):
                result = self._suite(original_node, result)
        elif isinstance(original_node, cst.Module) and isinstance(result, cst.Module):
            units = self._units(original_node.body, result.body)
            if any(key in self.stmt_targets for key, _ in units):
                body, pending = self._rebuild(units)
                result = result.with_changes(body=body, footer=[*pending, *result.footer])
        if original_node in self.plan.top and isinstance(result, (cst.For, cst.While, cst.FunctionDef)):
            block = result.body
            if not isinstance(block, cst.IndentedBlock):
                raise Stale("loop body is not a block")
            new = self._resolve(self.plan.top[original_node])
            result = result.with_changes(body=block.with_changes(body=[*new, *block.body]))
        return result


def _replacement(unit: cst.BaseStatement, new: Sequence[cst.BaseStatement]) -> list[cst.BaseStatement]:
    """``new`` in place of ``unit``; the old statement's end-of-line comment stays on the last new line."""
    out = list(new)
    if isinstance(unit, cst.SimpleStatementLine) and unit.trailing_whitespace.comment is not None and out:
        last = out[-1]
        if isinstance(last, cst.SimpleStatementLine) and last.trailing_whitespace.comment is None:
            out[-1] = last.with_changes(trailing_whitespace=unit.trailing_whitespace)
        elif (
            isinstance(last, cst.BaseCompoundStatement)
            and isinstance(last.body, cst.IndentedBlock)
            and last.body.header.comment is None
        ):
            # A block's header line carries the comment: `with torch.no_grad():  # sgd`.
            header = unit.trailing_whitespace
            out[-1] = last.with_changes(body=last.body.with_changes(header=header))
    return out


def _wrap(unit: cst.BaseStatement, template: cst.BaseCompoundStatement) -> cst.BaseStatement:
    body = template.body
    if not isinstance(body, cst.IndentedBlock):
        raise Stale("wrapper has no indented block")
    inner = unit.with_changes(leading_lines=[])
    return template.with_changes(body=body.with_changes(body=[inner]))
