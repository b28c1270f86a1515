"""The abstract autograd graph of one backward call, as the graph view draws it.

Read from the interpreter's own facts (the sites each backward run's value holds, their inputs,
what each run freed and what made it raise): the picture shows the model that produced the
finding, never a second analysis. Positions are spans of the analysed program; the language server
turns them into editor ranges.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from ..findings import Span
from ..record import record, replace
from .modules import LINE_BLOCK
from .values import Grad, IPath, Site, Val

if TYPE_CHECKING:
    from .report import Reporter
    from .state import BackwardRun

MAX_NODES = 150
MAX_LABEL = 48


@record(frozen=True, slots=True)
class GraphLane:
    id: str
    label: str


@record(frozen=True, slots=True)
class GraphNode:
    id: str
    label: str
    name: str | None
    kind: str  # "leaf", "op", "module", "input"
    lane: str
    saves: bool
    freed_by: str | None
    span: Span | None
    detail: str


@record(frozen=True, slots=True)
class GraphEdge:
    src: str
    dst: str
    reach: bool = False


@record(frozen=True, slots=True)
class GraphPass:
    id: str
    label: str
    lane: str
    root: str | None
    frees: tuple[str, ...]
    raises: bool
    reaches: str | None = None  # the freed node it meets when no edge of this graph leads there
    changed: str | None = None  # the node whose saved tensor an in-place write changed under it
    changed_by: str | None = None  # that write's text and line
    own: bool = True  # a run of the backward call the graph is about (else an earlier one's)
    retains: bool = False  # retain_graph=True / create_graph=True: it frees nothing


@record(frozen=True, slots=True)
class AutogradGraph:
    backward_label: str
    backward_span: Span
    lanes: tuple[GraphLane, ...]
    nodes: tuple[GraphNode, ...]
    edges: tuple[GraphEdge, ...]
    passes: tuple[GraphPass, ...]
    reach: tuple[str, str] | None  # the edge through which a later pass meets freed buffers
    truncated: bool


def graph_fields(
    graph: AutogradGraph,
    place: Callable[[Span | None], dict[str, Any]],
    describe: Callable[[str], str] = lambda text: text,
) -> dict[str, Any]:
    """The graph as JSON fields (docs/graph-view.md), positions as ``place`` writes them (editor
    ranges for the language server, rows and columns for the CLI), texts through ``describe``."""
    return {
        "lanes": [{"id": lane.id, "label": describe(lane.label)} for lane in graph.lanes],
        "nodes": [
            {
                "id": n.id,
                "label": n.label,
                "name": n.name,
                "kind": n.kind,
                "lane": n.lane,
                "saves": n.saves,
                "freedBy": n.freed_by,
                **place(n.span),
                "detail": n.detail,
            }
            for n in graph.nodes
        ],
        "edges": [{"from": e.src, "to": e.dst, "reach": e.reach} for e in graph.edges],
        "passes": [
            {
                "id": p.id,
                "label": describe(p.label),
                "lane": p.lane,
                "root": p.root,
                "frees": list(p.frees),
                "raises": p.raises,
                "reaches": p.reaches,
                "changed": p.changed,
                "changedBy": p.changed_by,
                "retains": p.retains,
                "own": p.own,
            }
            for p in graph.passes
        ],
        "truncated": graph.truncated,
    }


def backward_lines(rep: Reporter) -> list[int]:
    """The lines (of this file) of the backward calls the analysis ran, in order."""
    return sorted({rep.span(r.call).line for r in rep.backward_runs if rep.span(r.call).line < LINE_BLOCK})


def build(rep: Reporter, tree: ast.Module, line: int) -> AutogradGraph | None:
    """The graph of the backward call on ``line`` (else the nearest one the analysis ran)."""
    lines = backward_lines(rep)
    if not lines:
        return None
    target = min(lines, key=lambda n: (abs(n - line), n))
    runs = [r for r in rep.backward_runs if rep.span(r.call).line == target]
    call = runs[0].call
    runs = [r for r in runs if r.call is call]  # one call of that line (the first)
    # A function's backward runs once per call of the function (and alone, when nothing calls
    # it): draw one of those activations, the one whose pass raises if there is one.
    inner = _inner_loops(tree, target)
    groups: list[tuple[IPath, list[BackwardRun]]] = []
    last: tuple[int, ...] = ()
    for run in sorted(runs, key=lambda r: r.seq):
        context = tuple(e for e in run.ipath if e[0] not in inner)
        here = tuple(it for loop, it in run.ipath if loop in inner)
        # Within one activation the function's own iterations only move forward.
        if not groups or groups[-1][0] != context or here <= last:
            groups.append((context, []))
        groups[-1][1].append(run)
        last = here
    context, chosen = next(
        ((c, g) for c, g in groups if any(r.reached or r.changed for r in g)),
        groups[0],
    )
    # The program stops at a pass that raises: later ones (the analysis goes on past some, to
    # find a second bug) are not part of its story.
    first_raise = next((i for i, r in enumerate(chosen) if r.reached or r.changed), None)
    if first_raise is not None:
        chosen = chosen[: first_raise + 1]
    return _Builder(rep, tree, chosen, context, inner).graph()


def _inner_loops(tree: ast.Module, line: int) -> set[int]:
    """The loops of the function holding ``line`` (of the module, at top level)."""
    scope: ast.AST = tree
    for node in _statements(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.lineno <= line <= (
            node.end_lineno or node.lineno
        ):
            if scope is tree or node.lineno >= getattr(scope, "lineno", 0):
                scope = node  # the innermost
    return {id(n) for n in _statements(scope) if isinstance(n, _LOOPS)}


_LOOPS = (ast.For, ast.AsyncFor, ast.While)


def _statements(root: ast.AST) -> Iterable[ast.stmt]:
    """Every statement under ``root`` (loops and functions are statements: no expression walked)."""
    todo = [root]
    while todo:
        node = todo.pop()
        for name in ("body", "orelse", "finalbody", "handlers", "cases"):
            for child in getattr(node, name, ()):
                if isinstance(child, ast.stmt):
                    yield child
                todo.append(child)


def _other_passes(rep: Reporter, runs: list[BackwardRun], sites: set[Site]) -> list[BackwardRun]:
    """Earlier passes of other backward calls that freed part of this graph (a GAN's D step on
    the fake, the first of two backwards of one loss): the story of what these runs meet."""
    last = max(r.seq for r in runs)
    return [
        r
        for r in rep.backward_runs
        if r.call is not runs[0].call and r.seq < last and sites.intersection(r.frees)
    ]


class _Builder:
    def __init__(
        self, rep: Reporter, tree: ast.Module, runs: list[BackwardRun], context: IPath, inner: set[int]
    ) -> None:
        self.rep = rep
        self.runs = runs
        self.context = context  # the iterations of the callers' loops this activation ran in
        self.inner = inner
        self.loops = {id(n): n for n in _statements(tree) if isinstance(n, _LOOPS)}
        self.lanes: dict[IPath, GraphLane] = {}
        self.owners: set[Site] = set()  # the sites drawn as nodes of their own
        self.node_of: dict[Site, str] = {}  # a site, or a module call's inside, to its node
        self.nodes: dict[str, dict[str, object]] = {}
        self.order: list[str] = []
        self.all_runs: list[BackwardRun] = runs  # with the other calls' passes, once known
        self.consumers: dict[str, list[IPath]] = {}  # a leaf or input node: its readers' iterations

    # -- lanes ----------------------------------------------------------------------------

    def lane(self, ipath: IPath) -> str:
        found = self.lanes.get(ipath)
        if found is None:
            found = self.lanes[ipath] = GraphLane(f"L{len(self.lanes)}", self.lane_label(ipath))
        return found.id

    def lane_label(self, ipath: IPath) -> str:
        # Iterations of the callers' loops are the same for everything drawn: left unsaid.
        if ipath[: len(self.context)] == self.context:
            ipath = ipath[len(self.context) :]
        if not ipath:
            inner = any(e[0] in self.inner for r in self.runs for e in r.ipath)
            return "before the loop" if inner else "the program"
        parts = []
        for loop_id, iteration in ipath:
            loop = self.loops.get(loop_id)
            head = _loop_head(self.rep, loop) if loop is not None else "a loop"
            parts.append(f"iteration {iteration} of `{head}`")
        return " › ".join(parts)

    # -- nodes ----------------------------------------------------------------------------

    def graph(self) -> AutogradGraph:
        rep, runs = self.rep, self.runs
        sites: set[Site] = set()
        for run in runs:
            if run.val.grad is Grad.GRAPH:
                sites |= run.val.sites
        ordered = sorted(sites, key=lambda s: s.seq)
        markers = [s for s in ordered if s.inner_from is not None]
        self.all_runs = sorted([*runs, *_other_passes(rep, runs, sites)], key=lambda r: r.seq)
        # Lanes in the order things happened: what was built first is leftmost.
        for site in ordered:
            self.lane(site.ipath)
        for run in self.all_runs:
            self.lane(run.ipath)
        # A site made inside a module call's forward is drawn as that call (its outermost one).
        outermost: dict[Site, Site] = {}
        for site in ordered:
            around = [m for m in markers if m is not site and m.inner_from <= site.seq < m.seq]  # type: ignore[operator]
            if around:
                outermost[site] = min(around, key=lambda m: m.inner_from or 0)
        for site in ordered:
            if site in outermost:
                continue  # drawn as its module call
            if getattr(site.node, "lineno", LINE_BLOCK) >= LINE_BLOCK:
                self.foreign(site)
                continue
            self.add_site(site)
        for site, marker in outermost.items():
            if marker in self.node_of:
                self.node_of[site] = self.node_of[marker]
                if site.saves:
                    self.nodes[self.node_of[marker]]["saves"] = True
        edges = self.edges(ordered)
        passes, reach = self.passes(ordered, edges)
        freed_by: dict[str, str] = {}
        for p in passes:
            for n in p.frees:
                freed_by.setdefault(n, p.id)
        truncated = len(self.order) > MAX_NODES
        keep = set(self.order)
        if truncated:
            keep = self.nearest(edges, passes)
        nodes = []
        for nid in self.order:
            if nid not in keep:
                continue
            d = self.nodes[nid]
            freer = freed_by.get(nid)
            detail = str(d["detail"])
            if d["saves"]:
                detail = _join(detail, "saves tensors for backward")
            if freer is not None:
                p = next(p for p in passes if p.id == freer)
                detail = _join(detail, f"{p.label.split(':')[0]} frees them")
            nodes.append(
                GraphNode(
                    nid,
                    str(d["label"]),
                    d["name"],  # type: ignore[arg-type]
                    str(d["kind"]),
                    str(d["lane"]),
                    bool(d["saves"]),
                    freer,
                    d["span"],  # type: ignore[arg-type]
                    detail,
                )
            )
        edges = [e for e in edges if e.src in keep and e.dst in keep]
        passes = [
            replace(
                p,
                root=p.root if p.root in keep else None,
                frees=tuple(n for n in p.frees if n in keep),
                reaches=p.reaches if p.reaches in keep else None,
                changed=p.changed if p.changed in keep else None,
            )
            for p in passes
        ]
        used = {n.lane for n in nodes} | {p.lane for p in passes}
        # Left to right in the order things happened; a lane only leaves and inputs were put in
        # (what every iteration reads) goes before the iterations it is the prefix of.
        first: dict[IPath, float] = {}
        for site in ordered:
            first.setdefault(site.ipath, site.seq)
        for run in self.all_runs:
            first[run.ipath] = min(first.get(run.ipath, run.seq), run.seq)

        def start(ipath: IPath) -> float:
            if ipath in first:
                return first[ipath]
            after = [v for p, v in first.items() if p[: len(ipath)] == ipath]
            return min(after) - 0.5 if after else -1.0

        lanes = tuple(
            lane for ipath, lane in sorted(self.lanes.items(), key=lambda kv: start(kv[0])) if lane.id in used
        )
        call = runs[0].call
        return AutogradGraph(
            rep.text(call) if len(rep.text(call)) <= 80 else rep.text(call.func) + "(...)",
            rep.span(call),
            lanes,
            tuple(nodes),
            tuple(edges),
            tuple(passes),
            reach if reach is None or (reach[0] in keep and reach[1] in keep) else None,
            truncated,
        )

    def new_node(self, **fields: object) -> str:
        nid = f"n{len(self.order) + 1}"
        self.nodes[nid] = fields
        self.order.append(nid)
        return nid

    def add_site(self, site: Site) -> None:
        rep = self.rep
        node = site.node
        label = _short(rep.pos.text(node))
        name = _bound_name(rep, site)
        if site.module is not None:
            kind = "module"
            detail = f"a call of `{site.module.cls_name}`" + (
                " (its forward drawn as one node)" if site.inner_from is not None else ""
            )
        else:
            kind = "op"
            detail = ""
        if name == label:
            name = None
        self.owners.add(site)
        self.node_of[site] = self.new_node(
            label=label,
            name=name,
            kind=kind,
            lane=self.lane(site.ipath),
            saves=site.saves,
            span=rep.span(node),
            detail=detail,
        )

    def foreign(self, site: Site) -> None:
        """A site made in another module's code with no module call of this file around it: drawn as
        the statement of this file that ran it."""
        stmt = next((s for s in reversed(site.stmts) if getattr(s, "lineno", LINE_BLOCK) < LINE_BLOCK), None)
        if stmt is None:
            return
        for other, nid in self.node_of.items():
            if (
                other.stmts[-1:]
                and self.nodes[nid]["span"] == self.rep.span(stmt)
                and other.ipath == site.ipath
            ):
                self.node_of[site] = nid
                self.nodes[nid]["saves"] = bool(self.nodes[nid]["saves"]) or site.saves
                return
        self.node_of[site] = self.new_node(
            label=_short(self.rep.pos.text(stmt)),
            name=None,
            kind="module",
            lane=self.lane(site.ipath),
            saves=site.saves,
            span=self.rep.span(stmt),
            detail="computed in another file of the project",
        )

    # -- edges ----------------------------------------------------------------------------

    def edges(self, ordered: list[Site]) -> list[GraphEdge]:
        seen: set[tuple[str, str]] = set()
        out: list[GraphEdge] = []
        leaves: dict[int, str] = {}
        for site in ordered:
            dst = self.node_of.get(site)
            if dst is None:
                continue
            # A module call's parameters; the calls inside a forward drawn as one node give theirs
            # to that node's module.
            params = self.parameters(site, leaves) if site in self.owners else None
            for val in _inputs(site):
                src = self.source(val, site, leaves)
                if src is None or src == dst or (src, dst) in seen:
                    continue
                seen.add((src, dst))
                out.append(GraphEdge(src, dst))
                if src in self.consumers:
                    self.consumers[src].append(site.ipath)
            if params is not None and (params, dst) not in seen:
                seen.add((params, dst))
                out.append(GraphEdge(params, dst))
                self.consumers[params].append(site.ipath)
        # A tensor with no node of its own (a leaf, an input) existed before every iteration that
        # reads it: drawn in the lane they share.
        for nid, paths in self.consumers.items():
            self.nodes[nid]["lane"] = self.lane(_common_prefix(paths))
        return out

    def parameters(self, site: Site, leaves: dict[int, str]) -> str | None:
        """The leaf standing for a module's parameters, where its call's gradients go."""
        inst = site.module
        if inst is None or not inst.has_params or site.frozen or not isinstance(site.node, ast.Call):
            return None
        found = leaves.get(id(inst))
        if found is None:
            owner = _short(self.rep.pos.text(site.node.func))
            found = leaves[id(inst)] = self.new_node(
                label=f"{owner} parameters",
                name=None,
                kind="leaf",
                lane=self.lane(site.ipath),
                saves=False,
                span=None,
                detail=f"the parameters of `{inst.cls_name}`: leaves that get .grad",
            )
            self.consumers[found] = []
        return found

    def source(self, val: Val, consumer: Site, leaves: dict[int, str]) -> str | None:
        if val.root is not None:
            return self.node_of.get(val.root)
        if not val.is_tensor or val.obj is None:
            return None
        if val.grad is Grad.LEAF or (val.grad is Grad.NONE and val.label):
            key = id(val.obj)
            found = leaves.get(key)
            if found is None:
                leaf = val.grad is Grad.LEAF
                found = leaves[key] = self.new_node(
                    label=val.label or ("parameter" if leaf else "tensor"),
                    name=None,
                    kind="leaf" if leaf else "input",
                    lane=self.lane(consumer.ipath),
                    saves=False,
                    span=None,
                    detail="a leaf: requires grad, gets .grad" if leaf else "requires no grad",
                )
                self.consumers[found] = []
            return found
        return None

    # -- passes ---------------------------------------------------------------------------

    def passes(
        self, ordered: list[Site], edges: list[GraphEdge]
    ) -> tuple[list[GraphPass], tuple[str, str] | None]:
        out: list[GraphPass] = []
        reach: tuple[str, str] | None = None
        freed: dict[str, str] = {}  # node -> the pass that freed it, so far
        for k, run in enumerate(self.all_runs, 1):
            own = run.call is self.runs[0].call
            frees: list[str] = []
            raises = run.reached is not None or run.changed is not None
            # A pass that raises stops there: what it would have freed is not drawn as freed.
            for site in () if raises else run.frees:
                nid = self.node_of.get(site)
                if nid is not None and nid not in frees:
                    frees.append(nid)
            root = self.node_of.get(run.val.root) if run.val.root is not None else None
            where = self.lanes[run.ipath].label
            text = _short(self.rep.text(run.call))
            label = f"pass {k}: {text}" + ("" if own else f" (line {self.rep.span(run.call).line})")
            inner_path = (
                run.ipath[len(self.context) :]
                if run.ipath[: len(self.context)] == self.context
                else run.ipath
            )
            reaches = None
            if own and run.reached is not None and reach is None:
                reach = self.reach_edge(run, edges, freed)
                if reach is None:
                    reaches = self.node_of.get(run.reached)
            changed = changed_by = None
            if own and run.changed is not None and run.changed_by is not None:
                changed = self.node_of.get(run.changed)
                write = run.changed_by
                changed_by = f"{_short(self.rep.text(write))} (line {self.rep.span(write).line})"
            out.append(
                GraphPass(
                    f"p{k}",
                    label + (f" in {where}" if inner_path else ""),
                    self.lane(run.ipath),
                    root,
                    tuple(frees),
                    raises and own,
                    reaches=reaches,
                    changed=changed,
                    changed_by=changed_by,
                    own=own,
                    retains=run.retain,
                )
            )
            for nid in frees:
                freed.setdefault(nid, f"p{k}")
        return out, reach

    def reach_edge(
        self, run: BackwardRun, edges: list[GraphEdge], freed: dict[str, str]
    ) -> tuple[str, str] | None:
        """The edge from the freed node to what this pass built on it later (the next iteration's
        read); None when the pass meets the freed node itself (a second backward of one loss)."""
        src = self.node_of.get(run.reached) if run.reached is not None else None
        if src is None:
            return None
        mine = {self.node_of[s] for s in run.val.sites if s in self.node_of}
        # Into a node built after the freeing pass (none freed it) from one an earlier pass freed:
        # from the node the pass met first when such an edge leaves it, else where the iteration's
        # new nodes meet the freed region (`feats` -> `head(feats)` when `backbone(x)` was met).
        boundary = [e for e in edges if e.src in freed and e.dst in mine and e.dst not in freed]
        later = [e for e in boundary if e.src == src] or boundary
        if not later:
            return None
        edge = later[-1]
        edges[edges.index(edge)] = GraphEdge(edge.src, edge.dst, reach=True)
        return edge.src, edge.dst

    def nearest(self, edges: list[GraphEdge], passes: Iterable[GraphPass]) -> set[str]:
        """The MAX_NODES nodes closest to the passes' roots, walking inputs backwards."""
        inputs: dict[str, list[str]] = {}
        for e in edges:
            inputs.setdefault(e.dst, []).append(e.src)
        todo = [p.root for p in passes if p.root is not None]
        keep: list[str] = []
        seen: set[str] = set()
        while todo and len(keep) < MAX_NODES:
            nid = todo.pop(0)
            if nid in seen:
                continue
            seen.add(nid)
            keep.append(nid)
            todo.extend(inputs.get(nid, ()))
        return set(keep)


def _inputs(site: Site) -> list[Val]:
    vals: list[Val] = []
    for v in site.inputs:
        if v.elts is not None:
            vals.extend(e for e in v.elts if e.is_tensor)
        else:
            vals.append(v)
    return vals


def _common_prefix(paths: list[IPath]) -> IPath:
    if not paths:
        return ()
    first = paths[0]
    n = len(first)
    for p in paths[1:]:
        n = min(n, len(p))
        while n and p[:n] != first[:n]:
            n -= 1
    return first[:n]


def _bound_name(rep: Reporter, site: Site) -> str | None:
    stmt = site.stmts[-1] if site.stmts else None
    if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and stmt.value is site.node:
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        if len(targets) == 1:
            return _short(rep.pos.text(targets[0]))
    return None


def _loop_head(rep: Reporter, loop: ast.AST) -> str:
    if isinstance(loop, (ast.For, ast.AsyncFor)):
        return _short(f"for {rep.pos.text(loop.target)} in {rep.pos.text(loop.iter)}")
    if isinstance(loop, ast.While):
        return _short(f"while {rep.pos.text(loop.test)}")
    return "a loop"


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_LABEL else text[: MAX_LABEL - 1] + "…"


def _join(a: str, b: str) -> str:
    return f"{a}; {b}" if a else b
