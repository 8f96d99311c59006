/**
 * The Anthropic SDK as this package uses it, bundled into dist/vendor/anthropic.js by the build
 * (scripts/vendor.mjs) as the openai SDK is; loaded only when a turn speaks `wire_api = "anthropic"`.
 */
export { default, APIError, APIConnectionError } from "@anthropic-ai/sdk";
