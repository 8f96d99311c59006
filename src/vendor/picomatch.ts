/** picomatch as the approval rules use it, bundled into dist/vendor/ by the build (scripts/vendor.mjs). */
export { default } from "picomatch";
