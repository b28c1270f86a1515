// The `gradguard/autogradGraph` request (docs/graph-view.md) and the messages between the extension
// host and the graph webview. Shared by both sides, so nothing here may import `vscode` or the DOM.

export const GRAPH_REQUEST = "gradguard/autogradGraph";

export interface LspPosition {
  line: number;
  character: number;
}

export interface LspRange {
  start: LspPosition;
  end: LspPosition;
}

export interface GraphParams {
  textDocument: { uri: string };
  position: LspPosition;
  fix: string | null;
}

export type NodeKind = "leaf" | "op" | "module" | "input";

export interface GraphLane {
  id: string;
  label: string;
}

export interface GraphNode {
  id: string;
  label: string;
  name?: string | null;
  kind: NodeKind;
  lane: string;
  saves: boolean;
  freedBy?: string | null;
  // Null when the node has no place in the user's code (the server could not map it back).
  uri?: string | null;
  range?: LspRange | null;
  detail?: string;
}

export interface GraphEdge {
  from: string;
  to: string;
  reach?: boolean;
}

export interface GraphPass {
  id: string;
  label: string;
  lane: string;
  root: string;
  frees: string[];
  raises: boolean;
}

export interface GraphFix {
  id: string;
  title: string;
  tradeoff?: string;
  preferred?: boolean;
}

export interface GraphResult {
  version: number;
  backward: { label: string; uri: string | null; range: LspRange | null };
  lanes: GraphLane[];
  nodes: GraphNode[];
  edges: GraphEdge[];
  passes: GraphPass[];
  finding: { code: string; message: string; reach?: { from: string; to: string } | null } | null;
  fixes: GraphFix[];
  appliedFix: { id: string; title: string } | null;
  truncated: boolean;
}

/** Extension host → webview. `location` is where the backward is, as the user names it. */
export type ToWebview =
  | { type: "graph"; graph: GraphResult; location: string }
  | { type: "preview"; fix: string; graph: GraphResult | null; error?: string }
  | { type: "message"; text: string; kind: "info" | "error" }
  | { type: "busy" };

/** Webview → extension host. */
export type FromWebview =
  | { type: "ready" }
  | { type: "previewFix"; fix: string }
  | { type: "reveal"; uri: string; range: LspRange };
