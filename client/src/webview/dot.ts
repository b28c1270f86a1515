// The autograd graph as Graphviz DOT. Pure (no DOM), so it can be tested under Node.
//
// Layout: one cluster per lane, the lanes side by side as columns in their order, each column's
// graph flowing top to bottom. Every lane has an invisible anchor at its top; the anchors share a
// rank and are chained left to right, which fixes the columns' order. Edges between lanes do not
// rank their nodes (constraint=false), so every lane starts at the top instead of drifting down
// below the lane that feeds it.
//
// Every element Graphviz draws gets an `id` and a `class` (they become SVG attributes), the hooks
// the webview's click handling and the end-to-end test rely on:
//   gg-lane-<lane>, gg-node-<node>, gg-pass-<pass>, gg-edge-<from>-<to>, gg-passedge-<pass>;
//   classes kind-<kind>, saves, freed, pass, raises, reach.
import type { GraphNode, GraphPass, GraphResult } from "../graphProtocol";

/** A DOT double-quoted string. Entities survive Graphviz's SVG output as text, so `&`, `<` and `>`
 * are written as entities; backslashes and quotes are escaped; newlines become centred line breaks. */
export function quote(text: string): string {
  const escaped = text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/\\/g, "\\\\")
    .replace(/"/g, '\\"')
    .replace(/\r\n?/g, "\n")
    .replace(/\n/g, "\\n");
  return `"${escaped}"`;
}

/** An id usable in SVG and CSS selectors: anything unusual becomes `_`. */
export function hookId(id: string): string {
  return id.replace(/[^A-Za-z0-9_-]/g, "_");
}

const MAX_LABEL = 26;

function shorten(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > MAX_LABEL ? `${flat.slice(0, MAX_LABEL - 1)}…` : flat;
}

/** `name = label` when the tensor has a name in the user's code, else the expression; a long one
 * on two lines, the name first (the tooltip has it whole). */
export function nodeText(node: Pick<GraphNode, "name" | "label">): string {
  if (!node.name) return shorten(node.label);
  const whole = `${node.name} = ${node.label.replace(/\s+/g, " ").trim()}`;
  return whole.length <= MAX_LABEL ? whole : `${node.name} =\n${shorten(node.label)}`;
}

/** Pass ids to their 1-based number, in the order the answer lists them. */
function passNumbers(passes: GraphPass[]): Map<string, number> {
  return new Map(passes.map((pass, index) => [pass.id, index + 1]));
}

const COLORS = {
  line: "#5b6270",
  text: "#1f2328",
  lane: "#8c959f",
  leaf: "#dbeafe",
  input: "#ffffff",
  op: "#f3f4f6",
  module: "#ede9fe",
  freed: "#f9c9c9",
  pass: "#fde7c7",
  passLine: "#b26b00",
  reach: "#d0021b",
};

const SHAPES: Record<string, string> = { leaf: "ellipse", input: "ellipse", op: "box", module: "component" };

type Attributes = Record<string, string | number | undefined>;

function attributes(attrs: Attributes): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined) continue;
    parts.push(`${key}=${typeof value === "number" ? String(value) : quote(value)}`);
  }
  return `[${parts.join(", ")}]`;
}

function nodeAttributes(node: GraphNode, passNumber: Map<string, number>): Attributes {
  const classes = ["gg-node", `kind-${hookId(node.kind)}`];
  const styles = ["filled"];
  if (node.kind === "op") styles.push("rounded");
  if (node.kind === "input") styles.push("dashed");
  let label = nodeText(node);
  let fill = COLORS[node.kind as keyof typeof COLORS] ?? COLORS.op;
  if (node.saves) classes.push("saves");
  if (node.freedBy) {
    classes.push("freed");
    fill = COLORS.freed;
    const number = passNumber.get(node.freedBy);
    label += `\nfreed by pass ${number ?? node.freedBy}`;
  }
  return {
    id: `gg-node-${hookId(node.id)}`,
    class: classes.join(" "),
    label,
    shape: SHAPES[node.kind] ?? "box",
    style: styles.join(","),
    fillcolor: fill,
    // A double border: this node keeps tensors for backward.
    peripheries: node.saves ? 2 : undefined,
    penwidth: node.saves ? 1.6 : undefined,
    tooltip: `${node.name ? `${node.name} = ` : ""}${node.label}${node.detail ? `\n${node.detail}` : ""}`,
  };
}

function passAttributes(pass: GraphPass): Attributes {
  // "pass 1: loss.backward() in iteration 1" on three short lines.
  const match = /^(pass \d+):\s*(.*?)(?:\s+(in .*))?$/.exec(pass.label);
  const parts = match ? [match[1], match[2], match[3]].filter(Boolean) : [pass.label];
  if (pass.raises) parts[0] += " (raises)";
  const label = parts.map((part) => shorten(part)).join("\n");
  return {
    id: `gg-pass-${hookId(pass.id)}`,
    class: pass.raises ? "gg-pass pass raises" : "gg-pass pass",
    label,
    shape: "cds",
    style: "filled",
    fillcolor: COLORS.pass,
    color: pass.raises ? COLORS.reach : COLORS.passLine,
    fontcolor: pass.raises ? COLORS.reach : COLORS.text,
    penwidth: pass.raises ? 2 : 1,
    tooltip: `${pass.label}${pass.raises ? ": raises" : ""}${pass.frees.length ? `; frees what ${pass.frees.length} node(s) saved` : ""}`,
  };
}

/** The whole picture. */
export function buildDot(graph: GraphResult): string {
  const passNumber = passNumbers(graph.passes);
  const nodeName = (id: string) => quote(`n:${id}`);
  const passName = (id: string) => quote(`p:${id}`);
  const known = new Set(graph.nodes.map((node) => node.id));
  const out: string[] = [];
  out.push("digraph autograd {");
  out.push(
    `  graph ${attributes({ rankdir: "TB", newrank: "true", bgcolor: "transparent", fontname: "Helvetica", fontsize: 11, nodesep: 0.3, ranksep: 0.35, pad: 0.1, id: "gg-graph" })};`,
  );
  out.push(`  node ${attributes({ fontname: "Helvetica", fontsize: 11, color: COLORS.line, fontcolor: COLORS.text, margin: "0.12,0.05", height: 0.3 })};`);
  out.push(`  edge ${attributes({ color: COLORS.line, arrowsize: 0.7, fontname: "Helvetica", fontsize: 10 })};`);

  // Members of each lane, in the lanes' order; a node of an unknown lane is drawn outside them.
  const laneOrder = graph.lanes.map((lane) => lane.id);
  const members = new Map<string, string[]>(laneOrder.map((id) => [id, []]));
  const loose: string[] = [];
  for (const node of graph.nodes) {
    const line = `${nodeName(node.id)} ${attributes(nodeAttributes(node, passNumber))};`;
    (members.get(node.lane) ?? loose).push(line);
  }
  for (const pass of graph.passes) {
    const line = `${passName(pass.id)} ${attributes(passAttributes(pass))};`;
    (members.get(pass.lane) ?? loose).push(line);
  }
  graph.lanes.forEach((lane, index) => {
    const lines = members.get(lane.id) ?? [];
    if (lines.length === 0) return;
    out.push(`  subgraph ${quote(`cluster_${index}`)} {`);
    out.push(
      `    graph ${attributes({ id: `gg-lane-${hookId(lane.id)}`, class: "gg-lane lane", label: lane.label, labeljust: "l", style: "rounded,dashed", color: COLORS.lane, fontcolor: COLORS.text, margin: 10 })};`,
    );
    out.push(`    ${anchorName(index)} ${ANCHOR};`);
    for (const line of lines) out.push(`    ${line}`);
    out.push("  }");
  });
  for (const line of loose) out.push(`  ${line}`);

  // The edges, forward (input → result). The finding's edge is the one marked `reach` (or, if the
  // answer names it only in `finding.reach`, that pair).
  const reachPair = graph.finding?.reach ?? null;
  const reachKey = reachPair ? `${reachPair.from}\u0000${reachPair.to}` : undefined;
  let reachDrawn = false;
  const seen = new Map<string, number>();
  const edgeLines: string[] = [];
  const laneOf = new Map(graph.nodes.map((node) => [node.id, node.lane]));
  const drawEdge = (from: string, to: string, reach: boolean) => {
    const constraint = laneOf.get(from) === laneOf.get(to);
    const base = `gg-edge-${hookId(from)}-${hookId(to)}`;
    const count = (seen.get(base) ?? 0) + 1;
    seen.set(base, count);
    const attrs: Attributes = { id: count === 1 ? base : `${base}-${count}`, class: reach ? "gg-edge reach" : "gg-edge" };
    if (reach) {
      Object.assign(attrs, {
        color: COLORS.reach,
        fontcolor: COLORS.reach,
        penwidth: 3,
        label: "reaches freed buffers",
        tooltip: graph.finding ? `${graph.finding.code}: ${graph.finding.message}` : "reaches freed buffers",
      });
    }
    if (!constraint) attrs.constraint = "false";
    edgeLines.push(`  ${nodeName(from)} -> ${nodeName(to)} ${attributes(attrs)};`);
  };
  for (const edge of graph.edges) {
    if (!known.has(edge.from) || !known.has(edge.to)) continue;
    const reach = Boolean(edge.reach) || `${edge.from}\u0000${edge.to}` === reachKey;
    reachDrawn ||= reach;
    drawEdge(edge.from, edge.to, reach);
  }
  if (reachPair && !reachDrawn && known.has(reachPair.from) && known.has(reachPair.to)) {
    drawEdge(reachPair.from, reachPair.to, true);
  }
  // Each pass hangs off its root: backward starts there (the arrow points back into the graph).
  for (const pass of graph.passes) {
    if (!known.has(pass.root)) continue;
    edgeLines.push(
      `  ${nodeName(pass.root)} -> ${passName(pass.id)} ${attributes({ id: `gg-passedge-${hookId(pass.id)}`, class: "gg-passedge", style: "dashed", dir: "back", color: COLORS.passLine, constraint: laneOf.get(pass.root) === pass.lane ? undefined : "false" })};`,
    );
  }
  out.push(...edgeLines);
  out.push(...laneOrdering(graph));
  out.push("}");
  return out.join("\n");
}

const ANCHOR = '[shape=point, style=invis, width=0, height=0, label=""]';

function anchorName(laneIndex: number): string {
  return quote(`lane-anchor:${laneIndex}`);
}

/** Invisible edges: each lane's anchor above the lane's first nodes, the anchors in a row. */
function laneOrdering(graph: GraphResult): string[] {
  const laneOf = new Map<string, string>();
  for (const node of graph.nodes) laneOf.set(`n:${node.id}`, node.lane);
  for (const pass of graph.passes) laneOf.set(`p:${pass.id}`, pass.lane);
  const hasIn = new Set<string>();
  const inner: Array<[string, string]> = graph.edges.map((edge) => [`n:${edge.from}`, `n:${edge.to}`]);
  for (const pass of graph.passes) inner.push([`n:${pass.root}`, `p:${pass.id}`]);
  for (const [from, to] of inner) {
    const lane = laneOf.get(from);
    if (lane !== undefined && lane === laneOf.get(to)) hasIn.add(to);
  }
  const lines: string[] = [];
  const anchors: string[] = [];
  graph.lanes.forEach((lane, index) => {
    const here = [...laneOf].filter(([, id]) => id === lane.id).map(([name]) => name);
    if (here.length === 0) return;
    const anchor = anchorName(index);
    anchors.push(anchor);
    for (const name of here.filter((n) => !hasIn.has(n))) lines.push(`  ${anchor} -> ${quote(name)} [style=invis];`);
  });
  if (anchors.length > 1) {
    lines.push(`  { rank=same; ${anchors.join("; ")}; }`);
    lines.push(`  ${anchors.join(" -> ")} [style=invis];`);
  }
  return lines;
}
