import type { McpManager } from "../../agent/index.js";
import { invalidRequest, rpcError } from "../../protocol/errors.js";
import { ErrorCode } from "../../protocol/jsonrpc.js";
import type { HandlerTable } from "../dispatcher.js";
import type { McpOAuthLogins } from "../mcpOAuthLogins.js";

/** What the `mcpServer/*` methods use: the MCP servers, and a check that a thread is loaded. */
export interface McpServerDeps {
  readonly mcp: McpManager;
  /** Throws -32600 `thread not found` unless the thread is loaded. */
  readonly requireThread: (threadId: string) => void;
  /** The OAuth logins waiting for a browser. */
  readonly oauthLogins: McpOAuthLogins;
}

/**
 * `mcpServer/tool/call` and `mcpServer/resource/read`: a client calls a tool or reads a resource
 * of a ready MCP server itself, outside any turn (so nobody is asked to approve: the client asked).
 * `mcpServer/oauth/login` signs in to an HTTP server that offers OAuth (see McpOAuthLogins).
 */
export function mcpServerHandlers({ mcp, requireThread, oauthLogins }: McpServerDeps): Pick<HandlerTable, "mcpServer/tool/call" | "mcpServer/resource/read" | "mcpServer/oauth/login"> {
  const ready = (server: string) => {
    const found = mcp.connection(server);
    if ("problem" in found) throw invalidRequest(found.problem);
    return found;
  };
  return {
    "mcpServer/tool/call": async (params) => {
      requireThread(params.threadId);
      const { connection, timeoutMs } = ready(params.server);
      if (!connection.tools.some((tool) => tool.name === params.tool)) throw invalidRequest(`MCP server \`${params.server}\` has no tool \`${params.tool}\``);
      const args = params.arguments && typeof params.arguments === "object" && !Array.isArray(params.arguments) ? (params.arguments as Record<string, unknown>) : {};
      const outcome = await connection.callTool(params.tool, args, { signal: new AbortController().signal, timeoutMs });
      if (!outcome.ok) throw rpcError(ErrorCode.InternalError, `MCP tool \`${params.server}.${params.tool}\` failed: ${outcome.message}`);
      const { content, structuredContent, isError } = outcome.result;
      return { content: [...content], ...(structuredContent === undefined ? {} : { structuredContent }), isError };
    },
    "mcpServer/oauth/login": (params) => oauthLogins.start(params),
    "mcpServer/resource/read": async (params) => {
      if (params.threadId) requireThread(params.threadId);
      const { connection, timeoutMs } = ready(params.server);
      try {
        return { contents: [...(await connection.readResource(params.uri, { timeoutMs }))] };
      } catch (error) {
        throw invalidRequest(`MCP server \`${params.server}\` could not read ${params.uri}: ${(error as Error).message}`);
      }
    },
  };
}
