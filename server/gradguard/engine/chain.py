"""The hover's story of a graph, in the user's own names and lines."""

from __future__ import annotations

import ast

from .positions import Positions
from .values import Site, Val


def chain_text(val: Val, target: Site, pos: Positions, loop: ast.AST | None) -> str:
    """e.g. ``loss (line 9) <- x_out (line 8) <- y (line 6, before the loop) <- t, a``, or
    ``loss (line 9) <- out (line 8) <- h (line 8, in an earlier iteration)`` for carried state."""
    start = val.root
    if start is None:
        return ""
    # Breadth-first from the backpropagated value to the site whose buffers are gone.
    parents: dict[int, Site | None] = {id(start): None}
    # The name a value had where it went in (`h` of `out, h = rnn(x, h)`): the site's own binding is
    # the first name its statement gave it (`out`), wrong for the other members of a tuple.
    via: dict[int, str] = {}
    order = [start]
    found: Site | None = None
    for site in order:
        if site is target:
            found = site
            break
        for inp in site.inputs:
            for nxt in [inp.root] if inp.root is not None else sorted(inp.sites, key=_seq):
                if id(nxt) not in parents:
                    parents[id(nxt)] = site
                    order.append(nxt)
                    if inp.label:  # the value itself, or the tuple that holds it (`state`)
                        via[id(nxt)] = inp.label
        if len(order) > 400:
            break
    if found is None:
        return ""
    path: list[Site] = []
    node: Site | None = found
    by_id = {id(s): s for s in order}
    while node is not None:
        path.append(node)
        parent = parents.get(id(node))
        node = by_id.get(id(parent)) if parent is not None else None
    path.reverse()
    # Where the story crosses out of the current iteration, say so once: a line number alone would
    # name the same line twice (`h (line 16) <- h (line 16)`) or call a method's line, above the
    # loop in the file, "before the loop".
    loop_id = id(loop) if loop is not None else None
    now = _iteration(start, loop_id)
    said: set[str] = set()
    parts: list[str] = []
    for site in path:
        if site.binding is None:
            continue
        name, line = site.binding
        name = via.get(id(site), name)
        if name == "_":
            continue
        where = f"line {line}"
        when = _when(_iteration(site, loop_id), now, loop_id)
        if when and when not in said:
            said.add(when)
            where += f", {when}"
        label = f"{name} ({where})"
        if not parts or parts[-1] != label:
            parts.append(label)
    leaves = [inp.label for inp in found.inputs if inp.label and inp.root is None]
    if leaves:
        parts.append(", ".join(dict.fromkeys(leaves)))
    if not parts:
        return ""
    return " <- ".join(parts)


def _iteration(site: Site, loop_id: int | None) -> int | None:
    """Which iteration of the loop made ``site``; None outside it (or without a loop)."""
    return next((i for l_id, i in site.ipath if l_id == loop_id), None)


def _when(iteration: int | None, now: int | None, loop_id: int | None) -> str:
    if loop_id is None or now is None:
        return ""
    if iteration is None:
        return "before the loop"
    return "in an earlier iteration" if iteration < now else ""


def _seq(site: Site) -> int:
    return int(getattr(site, "seq", 0))
