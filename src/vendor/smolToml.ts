/** smol-toml as the config code uses it, bundled into dist/vendor/ by the build (scripts/vendor.mjs). */
export { parse, stringify, TomlError } from "smol-toml";
