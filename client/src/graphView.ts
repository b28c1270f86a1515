// "Show Autograd Graph": one webview panel beside the editor that draws the server's answer to
// gradguard/autogradGraph (docs/graph-view.md) for one backward call, and follows the document as
// the user types. The host only asks and relays; the webview (webview/graph.ts) builds the picture.
import * as crypto from "node:crypto";
import * as vscode from "vscode";
import type { LanguageClient } from "vscode-languageclient/node";
import {
  FromWebview,
  GRAPH_REQUEST,
  GraphParams,
  GraphResult,
  LspPosition,
  LspRange,
  ToWebview,
} from "./graphProtocol";
import { Log } from "./log";

export const SHOW_GRAPH = "gradguard.showGraph";
const VIEW_TYPE = "gradguard.autogradGraph";
const TITLE = "Autograd Graph";
const UPDATE_DELAY_MS = 400;
const CELL_SCHEME = "vscode-notebook-cell";
export const NO_BACKWARD = "No backward call here that the analysis followed.";

interface Target {
  uri: string;
  position: LspPosition;
}

/** Cells of one notebook share the notebook's scheme-less identity: same path, their own fragment. */
function sameProgram(a: vscode.Uri, b: vscode.Uri): boolean {
  if (a.toString() === b.toString()) return true;
  return a.scheme === CELL_SCHEME && b.scheme === CELL_SCHEME && a.authority === b.authority && a.path === b.path;
}

function notebookOfCell(uri: vscode.Uri): { notebook: vscode.NotebookDocument; index: number } | undefined {
  const key = uri.toString();
  for (const notebook of vscode.workspace.notebookDocuments) {
    const index = notebook.getCells().findIndex((cell) => cell.document.uri.toString() === key);
    if (index >= 0) return { notebook, index };
  }
  return undefined;
}

function toRange(range: LspRange): vscode.Range {
  return new vscode.Range(range.start.line, range.start.character, range.end.line, range.end.character);
}

/** Where a range is, in the words of the workbench: `train.py, line 13` or `nb.ipynb, cell 3, line 2`. */
function describeLocation(uri: string | null, range: LspRange | null): string {
  if (!uri || !range) return "";
  const parsed = vscode.Uri.parse(uri);
  const line = `line ${range.start.line + 1}`;
  if (parsed.scheme === CELL_SCHEME) {
    const cell = notebookOfCell(parsed);
    if (cell !== undefined) return `${vscode.workspace.asRelativePath(cell.notebook.uri)}, cell ${cell.index + 1}, ${line}`;
  }
  return `${vscode.workspace.asRelativePath(parsed)}, ${line}`;
}

/** The target's line after an edit: moved by the lines inserted or removed above it. */
export function shiftedLine(line: number, changes: readonly vscode.TextDocumentContentChangeEvent[]): number {
  let delta = 0;
  for (const change of changes) {
    // Ranges are in the text before the edit; an edit on or below the line leaves it where it is.
    if (change.range.end.line >= line) continue;
    const added = change.text.split(/\r\n|\r|\n/).length - 1;
    delta += added - (change.range.end.line - change.range.start.line);
  }
  return Math.max(0, line + delta);
}

export class GraphPanel implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private target: Target | undefined;
  private editorColumn: vscode.ViewColumn | undefined;
  // What the webview shows, sent again when it (re)loads.
  private last: ToWebview | undefined;
  // Fix previews of the current text, by fix id; cleared with every new request.
  private previews = new Map<string, Promise<ToWebview>>();
  private generation = 0;
  private pending: vscode.CancellationTokenSource | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly log: Log,
    private readonly client: () => LanguageClient | undefined,
  ) {
    this.disposables.push(
      vscode.workspace.onDidChangeTextDocument((event) => this.onDocumentChange(event)),
      vscode.workspace.onDidChangeNotebookDocument((event) => {
        const target = this.target;
        if (target === undefined || event.contentChanges.length === 0) return;
        const cell = notebookOfCell(vscode.Uri.parse(target.uri));
        if (cell?.notebook === event.notebook) this.updateSoon();
      }),
    );
  }

  /** Opens the panel (or reuses it) on the backward call at `position` of `uri`. */
  show(uri: string, position: LspPosition, editorColumn: vscode.ViewColumn | undefined): void {
    this.target = { uri, position: { line: position.line, character: position.character } };
    if (editorColumn !== undefined) this.editorColumn = editorColumn;
    if (this.panel === undefined) {
      this.panel = this.createPanel();
    } else {
      this.panel.reveal(undefined, true);
    }
    void this.update();
  }

  /** Asks again now, for the whole view (after a restart of the server, say). */
  refresh(): void {
    if (this.target !== undefined && this.panel !== undefined) void this.update();
  }

  private createPanel(): vscode.WebviewPanel {
    const out = vscode.Uri.joinPath(this.extensionUri, "client", "out");
    const panel = vscode.window.createWebviewPanel(
      VIEW_TYPE,
      TITLE,
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
      { enableScripts: true, localResourceRoots: [out] },
    );
    panel.webview.html = this.html(panel.webview, vscode.Uri.joinPath(out, "graph.js"));
    panel.webview.onDidReceiveMessage((msg: FromWebview) => void this.onMessage(msg), undefined, this.disposables);
    panel.onDidDispose(() => {
      if (this.panel !== panel) return;
      this.panel = undefined;
      this.target = undefined;
      this.last = undefined;
      this.previews.clear();
      this.pending?.cancel();
      if (this.timer !== undefined) clearTimeout(this.timer);
    });
    return panel;
  }

  private post(msg: ToWebview, remember = true): void {
    if (remember) this.last = msg;
    void this.panel?.webview.postMessage(msg);
  }

  private async onMessage(msg: FromWebview): Promise<void> {
    try {
      switch (msg.type) {
        case "ready":
          if (this.last !== undefined) this.post(this.last);
          break;
        case "previewFix":
          await this.preview(msg.fix);
          break;
        case "reveal":
          await this.reveal(msg.uri, msg.range);
          break;
      }
    } catch (err) {
      this.log.error(`Graph view: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  private async request(target: Target, fix: string | null, token?: vscode.CancellationToken): Promise<GraphResult | null> {
    const client = this.client();
    if (client === undefined) throw new Error("the gradguard server is not running; see the gradguard log");
    const params: GraphParams = { textDocument: { uri: target.uri }, position: target.position, fix };
    // Not `sendRequest(method, params, undefined)`: two arguments would go out as a params array.
    return token === undefined
      ? client.sendRequest<GraphResult | null>(GRAPH_REQUEST, params)
      : client.sendRequest<GraphResult | null>(GRAPH_REQUEST, params, token);
  }

  /** The current graph of the target; a newer request makes an older answer moot. */
  private async update(): Promise<void> {
    const target = this.target;
    if (target === undefined) return;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.pending?.cancel();
    const source = new vscode.CancellationTokenSource();
    this.pending = source;
    const generation = ++this.generation;
    this.previews.clear();
    this.post({ type: "busy" }, false);
    let msg: ToWebview;
    try {
      const graph = await this.request(target, null, source.token);
      msg =
        graph === null || graph === undefined
          ? { type: "message", kind: "info", text: NO_BACKWARD }
          : { type: "graph", graph, location: describeLocation(graph.backward.uri, graph.backward.range) };
      if (this.panel !== undefined) this.panel.title = graph ? `${TITLE}: ${graph.backward.label}` : TITLE;
    } catch (err) {
      if (source.token.isCancellationRequested) return;
      const text = err instanceof Error ? err.message : String(err);
      this.log.warn(`Graph view: ${GRAPH_REQUEST} failed: ${text}`);
      msg = { type: "message", kind: "error", text: `The graph could not be computed: ${text}` };
    } finally {
      source.dispose();
      if (this.pending === source) this.pending = undefined;
    }
    if (generation !== this.generation || this.target !== target) return;
    this.post(msg);
  }

  /** The graph after one fix, asked once per fix and text. */
  private async preview(fix: string): Promise<void> {
    const target = this.target;
    if (target === undefined) return;
    const generation = this.generation;
    let answer = this.previews.get(fix);
    if (answer === undefined) {
      answer = this.request(target, fix).then(
        (graph): ToWebview => ({ type: "preview", fix, graph: graph ?? null }),
        (err: unknown): ToWebview => ({ type: "preview", fix, graph: null, error: err instanceof Error ? err.message : String(err) }),
      );
      this.previews.set(fix, answer);
    }
    const msg = await answer;
    if (generation === this.generation) this.post(msg, false);
  }

  private onDocumentChange(event: vscode.TextDocumentChangeEvent): void {
    const target = this.target;
    if (target === undefined || event.contentChanges.length === 0) return;
    const changed = event.document.uri;
    const targetUri = vscode.Uri.parse(target.uri);
    if (changed.toString() === targetUri.toString()) {
      target.position = { line: shiftedLine(target.position.line, event.contentChanges), character: target.position.character };
    } else if (!sameProgram(changed, targetUri)) {
      return;
    }
    this.updateSoon();
  }

  private updateSoon(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    // The answer of the text being replaced is of no use now.
    this.generation++;
    this.previews.clear();
    this.timer = setTimeout(() => void this.update(), UPDATE_DELAY_MS);
  }

  /** Shows a node's range in its document: a file, or a cell (its notebook is opened at the cell). */
  private async reveal(uri: string, range: LspRange): Promise<void> {
    // Only a place the server's last answer named: the webview is not trusted to pick documents.
    const known = this.last?.type === "graph" ? this.last.graph : undefined;
    if (known === undefined || !known.nodes.some((node) => node.uri === uri) || !isRange(range)) return;
    const parsed = vscode.Uri.parse(uri);
    const selection = toRange(range);
    const visible = vscode.window.visibleTextEditors.find((editor) => editor.document.uri.toString() === parsed.toString());
    const column = visible?.viewColumn ?? this.editorColumn ?? vscode.ViewColumn.One;
    if (parsed.scheme === CELL_SCHEME) {
      const cell = notebookOfCell(parsed);
      if (cell === undefined) return;
      const cells = new vscode.NotebookRange(cell.index, cell.index + 1);
      const editor = await vscode.window.showNotebookDocument(cell.notebook, { viewColumn: column, selections: [cells] });
      editor.revealRange(cells, vscode.NotebookEditorRevealType.InCenterIfOutsideViewport);
      try {
        // A cell's document shown as text lands in its notebook editor, focused, with the selection.
        await vscode.window.showTextDocument(cell.notebook.cellAt(cell.index).document, { viewColumn: editor.viewColumn, selection });
      } catch (err) {
        this.log.debug(`Graph view: focusing the cell failed (${String(err)}); selecting only`);
        const cellEditor = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === parsed.toString());
        if (cellEditor !== undefined) cellEditor.selection = new vscode.Selection(selection.start, selection.end);
      }
      return;
    }
    const document = await vscode.workspace.openTextDocument(parsed);
    await vscode.window.showTextDocument(document, { viewColumn: column, selection, preserveFocus: false });
  }

  private html(webview: vscode.Webview, script: vscode.Uri): string {
    const nonce = crypto.randomBytes(18).toString("base64");
    // Only this extension's nonce'd script and style; WebAssembly compiles Graphviz from bytes inside
    // the script ('wasm-unsafe-eval'); nothing remote.
    const csp = [
      "default-src 'none'",
      `script-src 'nonce-${nonce}' 'wasm-unsafe-eval'`,
      `style-src 'nonce-${nonce}'`,
      `img-src ${webview.cspSource} data:`,
      `font-src ${webview.cspSource}`,
    ].join("; ");
    return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>${TITLE}</title>
<style nonce="${nonce}">${STYLE}</style>
</head>
<body>
<div id="header"></div>
<div id="legend" aria-label="Legend">
  <span class="item"><span class="swatch leaf"></span>leaf (requires grad)</span>
  <span class="item"><span class="swatch input"></span>input (no grad)</span>
  <span class="item"><span class="swatch op"></span>operation</span>
  <span class="item"><span class="swatch module"></span>module or function call</span>
  <span class="item"><span class="swatch op saves"></span>saves tensors for backward</span>
  <span class="item"><span class="swatch op freed"></span>freed by a backward pass</span>
  <span class="item"><span class="swatch pass"></span>backward pass</span>
  <span class="item"><span class="swatch reach"></span>reaches freed buffers</span>
</div>
<div id="message" class="info">Loading the graph…</div>
<div id="caption" class="hidden"></div>
<div id="graph"></div>
<script type="module" nonce="${nonce}" src="${webview.asWebviewUri(script).toString()}"></script>
</body>
</html>`;
  }

  dispose(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.pending?.cancel();
    this.panel?.dispose();
    for (const disposable of this.disposables) disposable.dispose();
  }
}

const STYLE = `
body { font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); color: var(--vscode-foreground); padding: 8px 12px; }
.hidden { display: none; }
#header .title { font-size: 1.15em; margin-bottom: 4px; }
#header .backward { font-family: var(--vscode-editor-font-family); font-weight: 600; color: var(--vscode-textLink-foreground); text-decoration: none; }
#header .location { color: var(--vscode-descriptionForeground); }
#header .finding { margin: 4px 0; }
#header .code { font-weight: 600; color: var(--vscode-errorForeground); }
#header .no-finding, #header .note { color: var(--vscode-descriptionForeground); margin: 4px 0; }
#header .fixes-heading { margin-top: 6px; color: var(--vscode-descriptionForeground); }
ul.fixes { margin: 4px 0; padding-left: 0; list-style: none; }
li.fix { padding: 3px 8px; margin: 2px 0; border-left: 3px solid var(--vscode-textLink-foreground); cursor: default; }
li.fix:hover, li.fix:focus { background: var(--vscode-list-hoverBackground); outline: none; }
li.fix .preferred { margin-left: 6px; font-size: 0.85em; padding: 0 4px; border-radius: 3px; background: var(--vscode-badge-background); color: var(--vscode-badge-foreground); }
li.fix .tradeoff { font-size: 0.9em; color: var(--vscode-descriptionForeground); }
#legend { display: flex; flex-wrap: wrap; gap: 4px 14px; margin: 8px 0; font-size: 0.9em; color: var(--vscode-descriptionForeground); }
#legend .item { display: inline-flex; align-items: center; gap: 5px; }
.swatch { display: inline-block; width: 22px; height: 12px; border: 1px solid #5b6270; background: #f3f4f6; border-radius: 3px; }
.swatch.leaf { background: #dbeafe; border-radius: 50%; }
.swatch.input { background: #ffffff; border: 1px dashed #5b6270; border-radius: 50%; }
.swatch.module { background: #ede9fe; border-radius: 0; }
.swatch.saves { border: 3px double #5b6270; }
.swatch.freed { background: #f9c9c9; }
.swatch.pass { background: #fde7c7; border-color: #b26b00; }
.swatch.reach { height: 0; border: 0; border-top: 3px solid #d0021b; border-radius: 0; }
#message.info { color: var(--vscode-descriptionForeground); margin: 12px 0; }
#message.error, #graph .error { color: var(--vscode-errorForeground); margin: 12px 0; }
#graph .info { color: var(--vscode-descriptionForeground); margin: 12px 0; }
#caption.preview { font-weight: 600; margin: 6px 0; padding: 3px 8px; background: var(--vscode-editorInfo-background, var(--vscode-list-hoverBackground)); border-left: 3px solid var(--vscode-editorInfo-foreground, #1a85ff); }
body.busy #graph { opacity: 0.6; }
#graph { overflow-x: auto; }
#graph svg.graph { display: block; }
#graph g.cluster > text, #graph g.edge:not(.reach) text { fill: var(--vscode-foreground); }
#graph g.clickable { cursor: pointer; }
#graph g.clickable:hover path, #graph g.clickable:hover polygon, #graph g.clickable:hover ellipse { stroke-width: 2.5; }
body.vscode-dark #graph g.edge:not(.reach) path, body.vscode-high-contrast #graph g.edge:not(.reach) path { stroke: #a0a8b4; }
body.vscode-dark #graph g.edge:not(.reach) polygon, body.vscode-high-contrast #graph g.edge:not(.reach) polygon { stroke: #a0a8b4; fill: #a0a8b4; }
`;

function isRange(value: unknown): value is LspRange {
  const r = value as Partial<LspRange> | null;
  const ok = (p: unknown): boolean => {
    const q = p as { line?: unknown; character?: unknown } | null;
    return typeof q?.line === "number" && typeof q.character === "number";
  };
  return ok(r?.start) && ok(r?.end);
}
