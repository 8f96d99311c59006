import type { McpServerConfig } from "../config/schema.js";
import type { McpServer } from "../vendor/acp.js";

/**
 * An ACP session's MCP servers as `[mcp_servers]` entries: a stdio command with its arguments and
 * environment, or an HTTP server with its headers. SSE servers are not offered (`mcpCapabilities.sse`
 * is false) and are left out.
 */
export function mcpServerConfigs(servers: readonly McpServer[] | undefined): Record<string, McpServerConfig> {
  const configs: Record<string, McpServerConfig> = {};
  for (const server of servers ?? []) {
    if (!("type" in server)) {
      configs[server.name] = { command: server.command, args: [...server.args], env: Object.fromEntries(server.env.map(({ name, value }) => [name, value])) };
    } else if (server.type === "http") {
      configs[server.name] = { url: server.url, http_headers: Object.fromEntries(server.headers.map(({ name, value }) => [name, value])) };
    }
  }
  return configs;
}
