/**
 * execa as this package uses it. The build bundles this module, with execa and its dependencies,
 * into dist/vendor/execa.js (scripts/vendor.mjs): loaded as ~100 separate modules from
 * node_modules, execa took ~120 ms to import, which fell on the first command of every process.
 */
export { execa } from "execa";
export type { ResultPromise } from "execa";
