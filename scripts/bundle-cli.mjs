#!/usr/bin/env node
// Bundles the command-line server into dist/cli.js (+ dist/chunks/) after `tsc` has built dist/.
// Resolving and compiling a few hundred of our ES modules was much of start-up; one file per lazy
// boundary loads faster. Dynamic `import()`s stay lazy: each becomes a chunk loaded on first use.
// The library entry points (dist/index.js, dist/client, dist/testing) stay tsc's unbundled modules.
//
// The bundle holds our code only: every package of package.json's dependencies, peerDependencies
// and optionalDependencies stays external, loaded from node_modules as the library loads it, so
// no package ships twice (once in the bundle, once installed) and an optional one (the MCP SDK)
// stays optional. The build fails if anything from node_modules gets into the bundle.
//
// `--no-sourcemap` (the `prepack` build): no .map files and no sourceMappingURL comments.
import { readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const chunks = path.join(root, "dist", "chunks");
rmSync(chunks, { recursive: true, force: true });
rmSync(path.join(root, "dist", "cli.js.map"), { force: true });

const manifest = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
// esbuild treats an external package's subpaths (`@modelcontextprotocol/sdk/client/index.js`) as external too.
const external = [
  ...new Set([manifest.dependencies, manifest.peerDependencies, manifest.optionalDependencies].flatMap((deps) => Object.keys(deps ?? {}))),
];

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
  sourcemap: process.argv.includes("--no-sourcemap") ? false : "linked",
  logLevel: "warning",
  metafile: true,
  external,
});

// A package imported by src/ but missing from the lists above would be bundled (and, if it is a
// dev dependency, absent from an install that the bundle does not cover): fail the build instead.
const bundled = [
  ...new Set(
    Object.values(metafile.outputs)
      .flatMap((output) => Object.keys(output.inputs))
      .filter((input) => input.split(/[\\/]/).includes("node_modules"))
      .map((input) => input.replace(/^.*node_modules[\\/]((@[^\\/]+[\\/])?[^\\/]+).*$/, "$1")),
  ),
];
if (bundled.length > 0) {
  console.error(`bundle-cli: packages bundled into dist/cli.js: ${bundled.join(", ")}; add them to package.json's dependencies (they stay external)`);
  process.exit(1);
}
