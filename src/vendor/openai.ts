/**
 * The openai SDK as this package uses it. The build bundles this module, with the SDK, into
 * dist/vendor/openai.js (scripts/vendor.mjs), so installing this package does not install the
 * SDK's 20 MB; everything that loads the SDK imports it from here.
 */
export { default, APIError, APIConnectionError } from "openai";
