#!/usr/bin/env node
// Puts into dist/vendor/, at build time, the third-party code the package ships instead of
// depending on its npm package, each with its licence:
// - tree-sitter-bash's grammar, compiled to WebAssembly (1.3 MB): the package also brings its C
//   sources and native prebuilds (~20 MB) and an install script (node-gyp-build) we never use;
// - the openai SDK (src/vendor/openai.ts, bundled: about 0.4 MB): the package is 20 MB (ES module
//   and CommonJS builds, TypeScript sources, declarations), two fifths of an install of ours;
// - web-tree-sitter (src/vendor/webTreeSitter.ts, bundled, and its runtime's WebAssembly, which it
//   looks for beside its module): the package is 5.8 MB, mostly debug builds and sources.
// Those three are dev dependencies. Each src/vendor/ module re-exports its package, so code run
// from src/ (the tests) imports the package itself; the bundles replace tsc's re-exports in dist/.
// The command line's chunks import these files rather than holding copies (scripts/bundle-cli.mjs).
//
// `--no-sourcemap` (the `prepack` build): no .map files.
import { copyFileSync, mkdirSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(path.join(root, "package.json"));
const vendor = path.join(root, "dist", "vendor");
const sourcemap = process.argv.includes("--no-sourcemap") ? false : "linked";
mkdirSync(vendor, { recursive: true });

/** The folder of an installed package (found through its main module: not every package exports its package.json). */
function packageDir(name, main) {
  return path.dirname(require.resolve(main ?? name));
}

const grammar = packageDir("tree-sitter-bash", "tree-sitter-bash/package.json");
copyFileSync(path.join(grammar, "tree-sitter-bash.wasm"), path.join(vendor, "tree-sitter-bash.wasm"));
copyFileSync(path.join(grammar, "LICENSE"), path.join(vendor, "tree-sitter-bash.LICENSE"));

for (const [module, name] of [["openai", "openai"], ["webTreeSitter", "web-tree-sitter"]]) {
  rmSync(path.join(vendor, `${module}.js.map`), { force: true });
  await build({
    entryPoints: [path.join(root, "src", "vendor", `${module}.ts`)],
    outfile: path.join(vendor, `${module}.js`),
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    sourcemap,
    logLevel: "warning",
  });
  copyFileSync(path.join(packageDir(name), "LICENSE"), path.join(vendor, `${name}.LICENSE`));
}
copyFileSync(path.join(packageDir("web-tree-sitter"), "tree-sitter.wasm"), path.join(vendor, "tree-sitter.wasm"));
