// The graph view's DOT builder (client/src/webview/dot.ts), bundled on the fly and laid out by the
// same Graphviz build the webview uses. Run by `make e2e` (no browser needed).
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import * as esbuild from "esbuild";
import { instance } from "@viz-js/viz";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "gradguard-dot-")), "dot.mjs");
await esbuild.build({ entryPoints: [path.join(HERE, "..", "src", "webview", "dot.ts")], bundle: true, format: "esm", platform: "neutral", outfile: out, logLevel: "error" });
const { buildDot, quote, nodeText } = await import(pathToFileURL(out).href);
const seed = JSON.parse(fs.readFileSync(path.join(HERE, "graph-seed.json"), "utf8"));
const viz = await instance();

function svgOf(graph) {
  const result = viz.render(buildDot(graph), { format: "svg" });
  assert.equal(result.status, "success", JSON.stringify(result.errors));
  return result.output.replace(/&#45;/g, "-");
}

test("labels are escaped for DOT and survive into the SVG as text", () => {
  assert.equal(quote('a "b" \\ c\nd'), '"a \\"b\\" \\\\ c\\nd"');
  assert.equal(quote("x<y> & z"), '"x&lt;y&gt; &amp; z"');
  const graph = structuredClone(seed);
  graph.nodes[3].label = 'f("a\\b",\n x<y>z&w)';
  graph.nodes[3].name = null;
  const svg = svgOf(graph);
  assert.match(svg, />f\(&quot;a\\b&quot;, x&lt;y&gt;z&amp;w\)</);
});

test("a node reads `name = expression`, or the expression alone", () => {
  assert.equal(nodeText({ label: "t @ a", name: "y" }), "y = t @ a");
  assert.equal(nodeText({ label: "x + y", name: null }), "x + y");
  assert.equal(nodeText({ label: "torch.eye(2, dtype=torch.float64, requires_grad=True)", name: "t" }), "t =\ntorch.eye(2, dtype=torch.…");
});

test("the seed's graph: lanes, nodes, passes and the reach edge carry stable ids and classes", () => {
  const svg = svgOf(seed);
  for (const lane of ["L0", "L1", "L2"]) assert.match(svg, new RegExp(`<g id="gg-lane-${lane}" class="cluster gg-lane lane"`));
  assert.match(svg, /<g id="gg-node-n3" class="node gg-node kind-op saves freed"/);
  assert.match(svg, />y = t @ a</);
  assert.match(svg, />freed by pass 1</);
  assert.match(svg, /<g id="gg-node-n1" class="node gg-node kind-leaf"/);
  assert.match(svg, /<g id="gg-pass-p2" class="node gg-pass pass raises"/);
  assert.match(svg, /<g id="gg-edge-n3-n7" class="edge gg-edge reach"/);
  assert.equal((svg.match(/class="edge gg-edge reach"/g) ?? []).length, 1);
  assert.match(svg, />reaches freed buffers</);
  assert.match(svg, /<g id="gg-passedge-p1" class="edge gg-passedge"/);
  assert.match(svg, /iteration 2 of `for __ in range\(2\)`/);
});

test("lanes are columns left to right in their order, without overlapping", () => {
  const svg = svgOf(seed);
  const boxes = ["L0", "L1", "L2"].map((lane) => {
    const outline = new RegExp(`<g id="gg-lane-${lane}"[^>]*>\\s*<title>[^<]*</title>\\s*<path[^>]* d="([^"]+)"`).exec(svg);
    assert.ok(outline, `lane ${lane} has an outline`);
    const xs = [...outline[1].matchAll(/(-?[\d.]+),-?[\d.]+/g)].map((m) => Number(m[1]));
    return { min: Math.min(...xs), max: Math.max(...xs) };
  });
  assert.ok(boxes[0].max < boxes[1].min && boxes[1].max < boxes[2].min, JSON.stringify(boxes));
});

test("a finding's reach missing from the edges is still drawn; unknown lanes and nodes do not break it", () => {
  const graph = structuredClone(seed);
  for (const edge of graph.edges) edge.reach = false;
  graph.edges = graph.edges.filter((edge) => !(edge.from === "n3" && edge.to === "n7"));
  graph.edges.push({ from: "n3", to: "nowhere" });
  graph.nodes.push({ id: "odd id\"", label: "z", kind: "input", lane: "elsewhere", saves: false, freedBy: null });
  const svg = svgOf(graph);
  assert.match(svg, /<g id="gg-edge-n3-n7" class="edge gg-edge reach"/);
  assert.match(svg, /id="gg-node-odd_id_"/);
});
