#!/usr/bin/env node
// Copies the bash grammar (tree-sitter-bash compiled to WebAssembly, 1.3 MB) and its MIT licence
// into dist/vendor/ at build time. The shell parser loads it from there, so tree-sitter-bash is a
// dev dependency only: installed, the package also brings its C sources and native prebuilds
// (~20 MB) and an install script (node-gyp-build) that we never use.
import { copyFileSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(path.join(root, "package.json"));
const grammar = path.dirname(require.resolve("tree-sitter-bash/package.json"));
const vendor = path.join(root, "dist", "vendor");
mkdirSync(vendor, { recursive: true });
copyFileSync(path.join(grammar, "tree-sitter-bash.wasm"), path.join(vendor, "tree-sitter-bash.wasm"));
copyFileSync(path.join(grammar, "LICENSE"), path.join(vendor, "tree-sitter-bash.LICENSE"));

