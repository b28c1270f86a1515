"""The hover's story of a graph, in the user's own names and lines."""

from __future__ import annotations

import ast

from .positions import Positions
from .values import Site, Val


def chain_text(val: Val, target: Site, pos: Positions, loop: ast.AST | None) -> str:
    """e.g. ``loss (line 9) <- x_out (line 8) <- y (line 6, before the loop) <- t, a``."""
    start = val.root
    if start is None:
        return ""
    # Breadth-first from the backpropagated value to the site whose buffers are gone.
    parents: dict[int, Site | None] = {id(start): None}
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
    loop_start = getattr(loop, "lineno", None)
    parts: list[str] = []
    for site in path:
        if site.binding is None:
            continue
        name, line = site.binding
        where = f"line {line}"
        if loop_start is not None and line < loop_start and site is found:
            where += ", before the loop"
        label = f"{name} ({where})"
        if not parts or parts[-1] != label:
            parts.append(label)
    leaves = [inp.label for inp in found.inputs if inp.label and inp.root is None]
    if leaves:
        parts.append(", ".join(dict.fromkeys(leaves)))
    if not parts:
        return ""
    return " <- ".join(parts)


def _seq(site: Site) -> int:
    return int(getattr(site, "seq", 0))
