#!/usr/bin/env node
// Bundles the command-line server into dist/cli.js (+ dist/chunks/) after `tsc` has built dist/.
// Resolving and compiling a few hundred of our ES modules was much of start-up; one file per lazy
// boundary loads faster. Dynamic `import()`s stay lazy: each becomes a chunk loaded on first use.
// The library entry points (dist/index.js, dist/client, dist/testing) stay tsc's unbundled modules.
//
// The bundle holds our code and the three packages serving loads at start-up that our declarations
// name (STARTUP below: zod, vscode-jsonrpc, pino), so they stay dependencies, installed for the
// library and its types, and ship twice (about 0.5 MB): a measured trade. Loaded from node_modules
// as hundreds of separate modules, they made spawn → first thread/start response 174 ms (zod alone
// external) and 187 ms (the seven packages then bundled, all external) against 143 ms (medians of
// 11, reused home). The other packages we ship are bundled once into dist/vendor/
// (scripts/vendor.mjs), and these chunks import them from there; every other dependency and peer dependency stays external, loaded from
// node_modules as the library loads it, and an optional one (the MCP SDK) stays optional. The
// build fails if any other package gets into the bundle.
//
// The package's bin is dist/cli.cjs: the same entry (src/cli.ts, which only imports the rest), as one
// small CommonJS file that imports the main chunk of the bundle below (and, for a command that
// serves, the serve chunk beside it). dist/cli.js stays, for those who run it.
//
// `--no-sourcemap` (the `prepack` build): no .map files and no sourceMappingURL comments.
import { readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const chunks = path.join(root, "dist", "chunks");
rmSync(chunks, { recursive: true, force: true });
for (const file of ["cli.js.map", "cli.cjs", "cli.cjs.map"]) rmSync(path.join(root, "dist", file), { force: true });

const VENDOR_FROM_CHUNKS = "../vendor/";
const sourcemap = process.argv.includes("--no-sourcemap") ? false : "linked";
const manifest = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
// esbuild treats an external package's subpaths (`@modelcontextprotocol/sdk/client/index.js`) as external too.
const STARTUP = new Set(["zod", "vscode-jsonrpc", "pino"]);
// What the start-up packages bring with them (pino's own dependencies), bundled along.
const STARTUP_DEPENDENCIES = new Set(["pino-std-serializers", "@pinojs/redact", "quick-format-unescaped", "atomic-sleep", "sonic-boom", "on-exit-leak-free", "thread-stream", "safe-stable-stringify", "pino-abstract-transport", "split2", "process-warning", "real-require", "fast-redact"]);
const external = [
  ...new Set([manifest.dependencies, manifest.peerDependencies, manifest.optionalDependencies].flatMap((deps) => Object.keys(deps ?? {}))),
].filter((name) => !STARTUP.has(name));

const { metafile } = await build({
  entryPoints: { cli: path.join(root, "src", "cli.ts") },
  outdir: path.join(root, "dist"),
  // Chunks sit one folder below dist/, like tsc's modules, so `new URL("../cli.js", import.meta.url)` holds in both.
  chunkNames: "chunks/[name]-[hash]",
  // The metafile's paths are relative to this: the launcher's build below looks up main.ts's and serve.ts's chunks in it.
  absWorkingDir: root,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  sourcemap,
  logLevel: "warning",
  metafile: true,
  // The start-up packages include CommonJS ones (pino, vscode-jsonrpc) that require Node's built-ins.
  banner: { js: 'import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url);' },
  external,
  // The packages of src/vendor/ are bundled on their own into dist/vendor/ (scripts/vendor.mjs),
  // which the library loads too: the chunks import them from there rather than holding copies.
  plugins: [
    {
      name: "vendored",
      setup(pluginBuild) {
        pluginBuild.onResolve({ filter: /[\\/]vendor[\\/]\w+\.js$/ }, (args) => ({ path: `${VENDOR_FROM_CHUNKS}${path.basename(args.path)}`, external: true }));
      },
    },
  ],
});
// Those paths are relative to dist/chunks/: an import of one from a file elsewhere would not resolve.
const misplaced = Object.entries(metafile.outputs).filter(
  ([file, output]) => !file.startsWith("dist/chunks/") && output.imports.some((imported) => imported.path.startsWith(VENDOR_FROM_CHUNKS)),
);
if (misplaced.length > 0) {
  console.error(`bundle-cli: ${misplaced.map(([file]) => file).join(", ")} import from ${VENDOR_FROM_CHUNKS}, which only resolves from dist/chunks/`);
  process.exit(1);
}

/** The packages whose code is in a build's output, by name (from its metafile's input paths). */
function packagesIn(inputPaths) {
  return [
    ...new Set(
      inputPaths
        .filter((input) => input.split(/[\\/]/).includes("node_modules"))
        .map((input) => input.replace(/^.*node_modules[\\/]((@[^\\/]+[\\/])?[^\\/]+).*$/, "$1").replaceAll("\\", "/")),
    ),
  ];
}
// A package imported by src/ but missing from the lists above would be bundled (and, if it is a
// dev dependency, absent from an install that the bundle does not cover): fail the build instead.
const bundled = packagesIn(Object.values(metafile.outputs).flatMap((output) => Object.keys(output.inputs))).filter(
  (name) => !STARTUP.has(name) && !STARTUP_DEPENDENCIES.has(name),
);
if (bundled.length > 0) {
  console.error(`bundle-cli: packages bundled into dist/cli.js: ${bundled.join(", ")}; add them to package.json's dependencies (they stay external)`);
  process.exit(1);
}

/** The chunk of the bundle whose entry is `source` (dist/cli.cjs imports main.ts's and serve.ts's). */
function chunkOf(source) {
  const chunk = Object.entries(metafile.outputs).find(([, output]) => output.entryPoint === source)?.[0];
  if (!chunk) {
    console.error(`bundle-cli: no chunk for ${source} in the bundle; dist/cli.cjs needs it`);
    process.exit(1);
  }
  return `./${path.relative(path.join(root, "dist"), path.resolve(root, chunk)).replaceAll("\\", "/")}`;
}
const launcherImports = { "./cli/main.js": chunkOf("src/cli/main.ts"), "./cli/serve.js": chunkOf("src/cli/serve.ts") };
const launcher = await build({
  entryPoints: [path.join(root, "src", "cli.ts")],
  outfile: path.join(root, "dist", "cli.cjs"),
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "node20",
  sourcemap,
  logLevel: "warning",
  metafile: true,
  // runtime/version.ts finds package.json from its own module's URL.
  define: { "import.meta.url": "__moduleUrl" },
  banner: { js: 'const __moduleUrl = require("node:url").pathToFileURL(__filename).href;' },
  plugins: [
    {
      name: "entry-chunks",
      setup(pluginBuild) {
        pluginBuild.onResolve({ filter: /^\.\/cli\/(main|serve)\.js$/ }, (args) => ({ path: launcherImports[args.path], external: true }));
      },
    },
  ],
});
// The launcher runs before anything else loads: a package in it (zod, say) would undo its purpose.
const launcherPackages = packagesIn(Object.keys(launcher.metafile.inputs));
if (launcherPackages.length > 0) {
  console.error(`bundle-cli: dist/cli.cjs must hold no package, but holds ${launcherPackages.join(", ")}: src/cli.ts must import nothing statically`);
  process.exit(1);
}
