import { NEEDS_LOGIN, type McpCredentialStore, type McpManager, type McpServerEntry } from "../../agent/index.js";
import type { McpServerStatus } from "../../protocol/mcpMethods.js";
import { offsetPage } from "../../threads/paging.js";
import type { HandlerTable } from "../dispatcher.js";

const DEFAULT_PAGE_SIZE = 100;

const RUNTIME_STATUS = { disabled: "disabled", starting: "starting", ready: "connected", failed: "failed" } as const;

/** `mcpServerStatus/list`: the configured MCP servers by name, a page at a time, with the tools of those connected. */
export function mcpHandlers(mcp: McpManager, credentials: McpCredentialStore): Pick<HandlerTable, "mcpServerStatus/list"> {
  return {
    "mcpServerStatus/list": (params) => {
      const servers = mcp.servers().filter((entry) => params.serverName == null || entry.name === params.serverName);
      const page = offsetPage(servers, params.cursor, Math.max(1, params.limit ?? DEFAULT_PAGE_SIZE));
      return { data: page.data.map((entry) => serverStatus(entry, authStatus(entry, credentials))), nextCursor: page.nextCursor };
    },
  };
}

/**
 * How a server signs in: stdio servers need nothing; an HTTP one uses a bearer token from the
 * environment, or the tokens of an OAuth login, or wants a login (it refused us with 401).
 */
function authStatus({ name, config, state }: McpServerEntry, credentials: McpCredentialStore): McpServerStatus["authStatus"] {
  if (config.command !== undefined || config.url === undefined) return "unsupported";
  if (config.bearer_token_env_var !== undefined) return "bearerToken";
  if (credentials.tokens(name, config.url)) return "oAuth";
  return state.status === "failed" && state.error.includes(NEEDS_LOGIN) ? "notLoggedIn" : "unsupported";
}

function serverStatus({ name, config, state }: McpServerEntry, auth: McpServerStatus["authStatus"]): McpServerStatus {
  const http = config.command === undefined && config.url !== undefined;
  const connection = state.status === "ready" ? state.connection : null;
  return {
    name,
    authStatus: auth,
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
