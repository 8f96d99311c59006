#!/usr/bin/env node
// Bundles the command-line server into dist/cli.js (+ dist/chunks/) after `tsc` has built dist/.
// Resolving and compiling a few hundred ES modules (zod, vscode-jsonrpc, pino, the openai SDK)
// was most of start-up; one file per lazy boundary loads several times faster. Dynamic
// `import()`s stay lazy: each becomes a chunk loaded on first use. The library entry points
// (dist/index.js, dist/client, dist/testing) stay tsc's unbundled modules.
import { rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const chunks = path.join(root, "dist", "chunks");
rmSync(chunks, { recursive: true, force: true });

const { metafile } = await build({
  entryPoints: { cli: path.join(root, "src", "cli.ts") },
  outdir: path.join(root, "dist"),
  // Chunks sit one folder below dist/, like tsc's modules, so `new URL("../cli.js", import.meta.url)` holds in both.
  chunkNames: "chunks/[name]-[hash]",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  // CommonJS dependencies (pino, vscode-jsonrpc, ws) call require() for Node's built-ins.
  banner: { js: 'import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url);' },
  sourcemap: "linked",
  logLevel: "warning",
  metafile: true,
  // The shell parser loads its WebAssembly files from beside its own modules: it must stay in node_modules.
  external: ["web-tree-sitter", "tree-sitter-bash", "@lydell/node-pty"],
});

// `import { z } from "zod"` holds zod's whole namespace, 360 KB of locales included; `import * as z`
// lets the bundle keep only what is used. Fail the build rather than let start-up regress silently.
const locales = Object.values(metafile.outputs)
  .flatMap((output) => Object.entries(output.inputs))
  .filter(([input, { bytesInOutput }]) => bytesInOutput > 0 && /zod\/v4\/locales\/(?!en\.js)/.test(input))
  .map(([input]) => input);
if (locales.length > 0) {
  console.error(`bundle-cli: zod locales in the bundle (${locales.length} files, e.g. ${locales[0]}): import zod as \`import * as z from "zod"\``);
  process.exit(1);
}
