// The graph view's webview script: it draws what the extension host sends (the server's answer to
// gradguard/autogradGraph) with Graphviz compiled to WebAssembly (@viz-js/viz, whose wasm is inside
// the bundle, so nothing is fetched). It never talks to the server itself: hovering a fix asks the
// host, which asks the server and caches the answer.
import { instance, type Viz } from "@viz-js/viz";
import type { FromWebview, GraphFix, GraphNode, GraphResult, LspRange, ToWebview } from "../graphProtocol";
import { buildDot } from "./dot";

interface VsCodeApi {
  postMessage(message: FromWebview): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();
let vizPromise: Promise<Viz> | undefined;

function element<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (className) el.className = className;
  if (text !== undefined) el.textContent = text;
  return el;
}

function byId(id: string): HTMLElement {
  const el = document.getElementById(id);
  if (el === null) throw new Error(`#${id} is missing from the page`);
  return el;
}

const header = byId("header");
const caption = byId("caption");
const message = byId("message");
const canvas = byId("graph");
// Graphviz wraps tooltips in SVG `<a>` elements. The webview host follows clicks on links by
// posting the link's `href`, which for SVG is an object that cannot be posted (a page error on each
// click): clicks inside the drawing stop here, after the nodes' own handlers ran.
canvas.addEventListener("click", (event) => {
  if (event.target instanceof Element && event.target.closest("a")) {
    event.preventDefault();
    event.stopPropagation();
  }
});

/** The graph of the current text, and fix previews for it (cleared with each new graph). */
let current: { graph: GraphResult; location: string } | undefined;
const previews = new Map<string, { graph: GraphResult | null; error?: string }>();
let hovered: GraphFix | undefined;
// Drawing is asynchronous (the wasm loads once); only the latest request may paint.
let drawToken = 0;

function showMessage(text: string, kind: "info" | "error" | "none"): void {
  message.textContent = text;
  message.className = kind === "none" ? "hidden" : kind;
}

function post(msg: FromWebview): void {
  vscode.postMessage(msg);
}

function reveal(uri: string | null | undefined, range: LspRange | null | undefined): void {
  if (uri && range) post({ type: "reveal", uri, range });
}

function renderHeader(graph: GraphResult, location: string): void {
  header.replaceChildren();
  const title = element("div", "title");
  const label = element("a", "backward", graph.backward.label);
  label.href = "#";
  label.title = "Show this backward call in the editor";
  label.addEventListener("click", (event) => {
    event.preventDefault();
    reveal(graph.backward.uri, graph.backward.range);
  });
  title.append(label, element("span", "location", ` ${location}`));
  header.append(title);

  if (graph.finding) {
    const finding = element("div", "finding");
    finding.append(element("span", "code", graph.finding.code), element("span", "finding-message", ` ${graph.finding.message}`));
    header.append(finding);
  } else {
    header.append(element("div", "no-finding", "No finding at this backward call."));
  }
  if (graph.truncated) {
    header.append(element("div", "note", "More than 150 nodes: the ones farthest from the backward call are left out."));
  }

  if (graph.fixes.length > 0) {
    header.append(element("div", "fixes-heading", "Fixes (hover one to see the graph after it):"));
    const list = element("ul", "fixes");
    list.id = "fixes";
    for (const fix of graph.fixes) {
      const item = element("li", "fix");
      item.tabIndex = 0;
      item.dataset.fixId = fix.id;
      item.append(element("span", "fix-title", fix.title));
      if (fix.preferred) item.append(element("span", "preferred", "preferred"));
      if (fix.tradeoff) item.append(element("div", "tradeoff", fix.tradeoff));
      const enter = () => startPreview(fix);
      const leave = () => endPreview(fix);
      item.addEventListener("mouseenter", enter);
      item.addEventListener("focus", enter);
      item.addEventListener("mouseleave", leave);
      item.addEventListener("blur", leave);
      list.append(item);
    }
    header.append(list);
  }
}

function startPreview(fix: GraphFix): void {
  hovered = fix;
  const known = previews.get(fix.id);
  if (known !== undefined) {
    showPreview(fix, known);
    return;
  }
  setCaption(`After: ${fix.title} (computing…)`, true);
  post({ type: "previewFix", fix: fix.id });
}

function endPreview(fix: GraphFix): void {
  if (hovered?.id !== fix.id) return;
  hovered = undefined;
  setCaption("", false);
  if (current) void draw(current.graph);
}

function showPreview(fix: GraphFix, answer: { graph: GraphResult | null; error?: string }): void {
  const left = answer.graph?.finding;
  setCaption(`After: ${fix.title}${answer.graph ? (left ? ` (${left.code} remains)` : " (no finding left)") : ""}`, true);
  if (answer.error !== undefined) {
    drawToken++;
    canvas.replaceChildren(element("div", "error", `The graph after this fix could not be computed: ${answer.error}`));
  } else if (answer.graph === null) {
    drawToken++;
    canvas.replaceChildren(element("div", "info", "After this fix there is no backward call here that the analysis followed."));
  } else {
    void draw(answer.graph);
  }
}

function setCaption(text: string, preview: boolean): void {
  caption.textContent = text;
  caption.className = preview ? "preview" : "hidden";
  document.body.classList.toggle("previewing", preview);
}

/** Lays the graph out with Graphviz and puts the SVG on the page, with click targets on nodes. */
async function draw(graph: GraphResult): Promise<void> {
  const token = ++drawToken;
  let svg: SVGSVGElement;
  try {
    vizPromise ??= instance();
    const viz = await vizPromise;
    if (token !== drawToken) return;
    svg = viz.renderSVGElement(buildDot(graph));
  } catch (err) {
    if (token !== drawToken) return;
    canvas.replaceChildren(element("div", "error", `The graph could not be drawn: ${err instanceof Error ? err.message : String(err)}`));
    return;
  }
  const nodes = new Map<string, GraphNode>(graph.nodes.map((node) => [`gg-node-${node.id}`, node]));
  for (const group of Array.from(svg.querySelectorAll<SVGGElement>("g.node"))) {
    const node = nodes.get(group.id);
    if (!node?.uri || !node.range) continue;
    group.classList.add("clickable");
    group.setAttribute("tabindex", "0");
    group.setAttribute("role", "button");
    const open = () => reveal(node.uri, node.range);
    group.addEventListener("click", open);
    group.addEventListener("keydown", (event) => {
      if (event.key === "Enter" || event.key === " ") open();
    });
  }
  svg.classList.add("graph");
  canvas.replaceChildren(svg);
  squeezeText(svg);
  fit();
  document.body.dataset.drawn = String(token);
}

/**
 * Graphviz sizes boxes with Helvetica's metrics; where the page's font is wider (DejaVu Sans on many
 * Linux machines), a label would spill out of its box, so it is condensed to the box's width.
 */
function squeezeText(svg: SVGSVGElement): void {
  for (const group of Array.from(svg.querySelectorAll<SVGGElement>("g.node, g.cluster"))) {
    const outline = group.querySelector<SVGGraphicsElement>("path, polygon, ellipse");
    if (outline === null) continue;
    const room = outline.getBBox().width - (group.classList.contains("cluster") ? 12 : 10);
    for (const text of Array.from(group.querySelectorAll<SVGTextElement>("text"))) {
      if (room > 0 && text.getComputedTextLength() > room) {
        text.setAttribute("textLength", String(room));
        text.setAttribute("lengthAdjust", "spacingAndGlyphs");
      }
    }
  }
}

// Below this scale labels become hard to read: the panel scrolls instead.
const MIN_SCALE = 0.6;

/** Full size (one unit a pixel) when the panel is wide enough, else shrunk to fit, down to MIN_SCALE. */
function fit(): void {
  const svg = canvas.querySelector<SVGSVGElement>("svg.graph");
  const box = svg?.viewBox.baseVal;
  if (!svg || !box || box.width === 0) return;
  const room = Math.max(1, canvas.clientWidth);
  const width = Math.min(box.width, Math.max(room, box.width * MIN_SCALE));
  svg.setAttribute("width", `${Math.round(width)}`);
  svg.setAttribute("height", `${Math.round((width * box.height) / box.width)}`);
}

window.addEventListener("resize", fit);

window.addEventListener("message", (event: MessageEvent<ToWebview>) => {
  const msg = event.data;
  switch (msg.type) {
    case "graph":
      current = { graph: msg.graph, location: msg.location };
      previews.clear();
      hovered = undefined;
      setCaption("", false);
      showMessage("", "none");
      renderHeader(msg.graph, msg.location);
      void draw(msg.graph);
      break;
    case "preview": {
      const answer = msg.error !== undefined ? { graph: null, error: msg.error } : { graph: msg.graph };
      previews.set(msg.fix, answer);
      if (hovered?.id === msg.fix) showPreview(hovered, answer);
      break;
    }
    case "message":
      current = undefined;
      previews.clear();
      hovered = undefined;
      drawToken++;
      setCaption("", false);
      header.replaceChildren();
      canvas.replaceChildren();
      showMessage(msg.text, msg.kind);
      break;
    case "busy":
      document.body.classList.add("busy");
      return;
  }
  document.body.classList.remove("busy");
});

post({ type: "ready" });
