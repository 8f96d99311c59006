#!/usr/bin/env node
// Puts into dist/vendor/, at build time, the third-party code the package ships instead of
// depending on its npm package, each with its licence:
// - tree-sitter-bash's grammar, compiled to WebAssembly (1.3 MB): the package also brings its C
//   sources and native prebuilds (~20 MB) and an install script (node-gyp-build) we never use;
// - one bundle per module of src/vendor/, each re-exporting what we use of a package: the openai
//   SDK (0.4 MB; the package is 20 MB: two module formats, sources, declarations), the Anthropic
//   and Google Gen AI SDKs (0.5 and 0.8 MB minified; loaded only by a turn on their wire), web-tree-sitter
//   (with its runtime's WebAssembly, which it looks for beside its module; the package is 5.8 MB,
//   mostly debug builds and sources), and smol-toml, picomatch, jsdiff and toml-patch (small, but
//   the command line loads them at start-up: one file each loads as fast as a bundled copy did,
//   and they no longer ship twice), and execa (0.12 MB minified: from node_modules its ~100 modules took
//   ~120 ms to import, on the first command of every process; bundled, ~25 ms). None of these
//   packages appears in our declarations.
// They are dev dependencies. Code run from src/ (the tests) imports the packages through the
// src/vendor/ modules; in dist/ the bundles replace tsc's re-exports, and the command line's chunks
// import them rather than holding copies (scripts/bundle-cli.mjs).
//
// `--no-sourcemap` (the `prepack` build): no .map files.
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { licenceFile, VENDORED } from "./vendored.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(path.join(root, "package.json"));
const vendor = path.join(root, "dist", "vendor");
const sourcemap = process.argv.includes("--no-sourcemap") ? false : "linked";
mkdirSync(vendor, { recursive: true });

/** The root folder of an installed package: above its main module, the nearest folder with a package.json named so. */
function packageRoot(name) {
  for (let dir = path.dirname(require.resolve(name)); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const manifest = path.join(dir, "package.json");
    if (existsSync(manifest) && JSON.parse(readFileSync(manifest, "utf8")).name === name) return dir;
  }
  throw new Error(`vendor: no package.json of ${name} above ${require.resolve(name)}`);
}

/** A package's licence file, whatever its case (execa's is `license`). */
function licenceOf(dir) {
  const file = readdirSync(dir).find((entry) => /^licen[cs]e(\.md|\.txt)?$/i.test(entry));
  if (!file) throw new Error(`vendor: no licence file in ${dir}`);
  return path.join(dir, file);
}

const grammar = packageRoot("tree-sitter-bash");
copyFileSync(path.join(grammar, "tree-sitter-bash.wasm"), path.join(vendor, "tree-sitter-bash.wasm"));
copyFileSync(path.join(grammar, "LICENSE"), path.join(vendor, "tree-sitter-bash.LICENSE"));

for (const { module, name, minify = false, external = [] } of VENDORED) {
  rmSync(path.join(vendor, `${module}.js.map`), { force: true });
  await build({
    entryPoints: [path.join(root, "src", "vendor", `${module}.ts`)],
    outfile: path.join(vendor, `${module}.js`),
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    sourcemap,
    minify,
    external,
    logLevel: "warning",
    // CommonJS code in a package (picomatch) may require Node's built-ins.
    banner: { js: 'import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url);' },
  });
  copyFileSync(licenceOf(packageRoot(name)), path.join(vendor, licenceFile(name)));
}
copyFileSync(path.join(packageRoot("web-tree-sitter"), "tree-sitter.wasm"), path.join(vendor, "tree-sitter.wasm"));
