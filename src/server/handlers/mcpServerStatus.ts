import type { McpManager, McpServerEntry } from "../../agent/index.js";
import type { McpServerStatus } from "../../protocol/mcpMethods.js";
import { offsetPage } from "../../threads/paging.js";
import type { HandlerTable } from "../dispatcher.js";

const DEFAULT_PAGE_SIZE = 100;

const RUNTIME_STATUS = { disabled: "disabled", starting: "starting", ready: "connected", failed: "failed" } as const;

/** `mcpServerStatus/list`: the configured MCP servers by name, a page at a time, with the tools of those connected. */
export function mcpHandlers(mcp: McpManager): Pick<HandlerTable, "mcpServerStatus/list"> {
  return {
    "mcpServerStatus/list": (params) => {
      const servers = mcp.servers().filter((entry) => params.serverName == null || entry.name === params.serverName);
      const page = offsetPage(servers, params.cursor, Math.max(1, params.limit ?? DEFAULT_PAGE_SIZE));
      return { data: page.data.map(serverStatus), nextCursor: page.nextCursor };
    },
  };
}

function serverStatus({ name, config, state }: McpServerEntry): McpServerStatus {
  const http = config.command === undefined && config.url !== undefined;
  const connection = state.status === "ready" ? state.connection : null;
  return {
    name,
    // Stdio servers need no sign-in; HTTP ones get a bearer token or nothing (no OAuth here).
    authStatus: http && config.bearer_token_env_var !== undefined ? "bearerToken" : "unsupported",
    runtimeStatus: RUNTIME_STATUS[state.status],
    tools: Object.fromEntries(
      (connection?.tools ?? []).map((tool) => [
        tool.name,
        {
          name: tool.name,
          title: tool.title ?? null,
          description: tool.description ?? null,
          inputSchema: tool.inputSchema,
          ...(tool.outputSchema === undefined ? {} : { outputSchema: tool.outputSchema }),
          ...(tool.annotations === undefined ? {} : { annotations: tool.annotations }),
        },
      ]),
    ),
    toolsError: state.status === "failed" ? state.error : null,
    resources: [],
    resourceTemplates: [],
    serverInfo: connection?.serverInfo
      ? { name: connection.serverInfo.name, version: connection.serverInfo.version, title: connection.serverInfo.title ?? null }
      : null,
    serverCapabilities: connection?.capabilities ?? null,
    httpOrigin: http ? httpOrigin(config.url!) : null,
  };
}

/** Scheme, host and port only: never credentials, path or query. */
function httpOrigin(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}
