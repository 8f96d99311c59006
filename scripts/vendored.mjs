// What scripts/vendor.mjs bundles into dist/vendor/, shared with the package test that checks it.

/**
 * Each src/vendor/ module and the package it re-exports (a dev dependency: installs never bring it).
 * `minify`: the Anthropic and Google SDKs bundle to 1.4 and 1.8 MB (every API resource, Google's
 * auth stack); minified they are a third of that to ship and to parse on a turn's first call.
 * execa (with its dependencies) is 0.25 MB, 0.12 MB minified, and imports as fast either way.
 * `external`: packages the bundle imports rather than holds (dependencies of ours too).
 */
export const VENDORED = [
  { module: "openai", name: "openai" },
  { module: "anthropic", name: "@anthropic-ai/sdk", minify: true },
  { module: "genai", name: "@google/genai", minify: true },
  { module: "webTreeSitter", name: "web-tree-sitter" },
  { module: "smolToml", name: "smol-toml" },
  { module: "picomatch", name: "picomatch" },
  { module: "diff", name: "diff" },
  { module: "tomlPatch", name: "@decimalturn/toml-patch" },
  { module: "execa", name: "execa", minify: true },
  // The ACP SDK's only dependency is zod, which the package has already.
  { module: "acp", name: "@agentclientprotocol/sdk", minify: true, external: ["zod", "zod/*"] },
];

/** The name of a vendored package's licence file in dist/vendor/ (a scope is left out). */
export function licenceFile(name) {
  return `${name.replace(/^@[^/]+\//, "")}.LICENSE`;
}
