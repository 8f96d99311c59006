/** toml-patch as config writes use it, bundled into dist/vendor/ by the build (scripts/vendor.mjs). */
export { patch } from "@decimalturn/toml-patch";
