// Bundles the client (and vscode-languageclient) into one CommonJS file, client/out/extension.js,
// and the graph view's webview script (with Graphviz's WebAssembly build inside it, so the view
// works offline) into client/out/graph.js.
import * as esbuild from "esbuild";

const production = process.argv.includes("--production");

await Promise.all([
  esbuild.build({
    entryPoints: ["client/src/extension.ts"],
    bundle: true,
    outfile: "client/out/extension.js",
    external: ["vscode"],
    format: "cjs",
    platform: "node",
    target: "node20",
    minify: production,
    sourcemap: production ? false : "inline",
    logLevel: "warning",
  }),
  esbuild.build({
    entryPoints: ["client/src/webview/graph.ts"],
    bundle: true,
    outfile: "client/out/graph.js",
    // A module script: @viz-js/viz is ESM and reads import.meta (its wasm is embedded, never fetched).
    format: "esm",
    platform: "browser",
    target: "chrome120",
    minify: production,
    // Most of the bundle is the embedded wasm; a source map of it helps nobody.
    sourcemap: false,
    logLevel: "warning",
  }),
]);
