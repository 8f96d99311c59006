/** jsdiff as the diff and config code use it, bundled into dist/vendor/ by the build (scripts/vendor.mjs). */
export { diffArrays } from "diff";
export type { ArrayChange } from "diff";
