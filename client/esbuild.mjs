// Bundles the client (and vscode-languageclient) into one CommonJS file: client/out/extension.js.
import * as esbuild from "esbuild";

const production = process.argv.includes("--production");

await esbuild.build({
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
});
