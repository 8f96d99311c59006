/** jsdiff as the diff, config and record code use it, bundled into dist/vendor/ by the build (scripts/vendor.mjs). */
export { applyPatch, diffArrays, diffWordsWithSpace, parsePatch, reversePatch } from "diff";
export type { ArrayChange } from "diff";
