/**
 * web-tree-sitter as the shell parser uses it. The build bundles this module, with the package,
 * into dist/vendor/webTreeSitter.js and puts its runtime's WebAssembly beside it (scripts/vendor.mjs),
 * so installing this package does not install web-tree-sitter's 5.8 MB.
 */
export { Language, Parser } from "web-tree-sitter";
export type { Node } from "web-tree-sitter";
