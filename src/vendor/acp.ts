/**
 * The Agent Client Protocol SDK as the `acp` face uses it. The build bundles this module into
 * dist/vendor/acp.js (scripts/vendor.mjs), zod left to the package's own dependency; it loads
 * only when `agent-app-server acp` runs.
 */
export { agent, ndJsonStream, PROTOCOL_VERSION, RequestError, methods } from "@agentclientprotocol/sdk";
export type * from "@agentclientprotocol/sdk";
