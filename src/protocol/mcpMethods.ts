import * as z from "zod";
import { lazySchema } from "./lazySchema.js";

/** How far an MCP server got in starting, as `mcpServer/startupStatus/updated` reports it. */
export const McpServerStartupState = lazySchema(() => z.enum(["starting", "ready", "failed", "cancelled"]));

/** Params of `mcpServer/startupStatus/updated`; `error` says why a server failed. */
export const McpServerStatusUpdatedNotification = lazySchema(() => z.object({
  name: z.string(),
  status: McpServerStartupState,
  error: z.string().nullable().optional(),
  failureReason: z.enum(["reauthenticationRequired"]).nullable().optional(),
  threadId: z.string().nullable().optional(),
}));
export type McpServerStatusUpdatedNotification = z.infer<typeof McpServerStatusUpdatedNotification>;

/** Params of `mcpServerStatus/list`: a page of the configured servers (`threadId` and `detail` change nothing here). */
export const ListMcpServerStatusParams = lazySchema(() => z.object({
  cursor: z.string().nullable().optional(),
  limit: z.number().int().nonnegative().nullable().optional(),
  detail: z.enum(["full", "toolsAndAuthOnly"]).nullable().optional(),
  serverName: z.string().nullable().optional(),
  threadId: z.string().nullable().optional(),
}));
export type ListMcpServerStatusParams = z.infer<typeof ListMcpServerStatusParams>;

/** A tool as its MCP server lists it. */
export const McpTool = lazySchema(() => z.object({
  name: z.string(),
  title: z.string().nullable().optional(),
  description: z.string().nullable().optional(),
  inputSchema: z.unknown(),
  outputSchema: z.unknown().optional(),
  annotations: z.unknown().optional(),
  icons: z.array(z.unknown()).nullable().optional(),
  _meta: z.unknown().optional(),
}));

/** What an initialized MCP server says about itself. */
export const McpServerInfo = lazySchema(() => z.object({
  name: z.string(),
  version: z.string(),
  title: z.string().nullable().optional(),
  description: z.string().nullable().optional(),
  websiteUrl: z.string().nullable().optional(),
  icons: z.array(z.unknown()).nullable().optional(),
}));

/** One configured MCP server: its connection state and, once connected, its tools by name. */
export const McpServerStatus = lazySchema(() => z.object({
  name: z.string(),
  authStatus: z.enum(["unknown", "unsupported", "notLoggedIn", "bearerToken", "oAuth"]),
  runtimeStatus: z.enum(["notStarted", "starting", "connected", "authenticationRequired", "failed", "cancelled", "disabled"]).nullable().optional(),
  tools: z.record(z.string(), McpTool),
  toolsError: z.string().nullable().optional(),
  resources: z.array(z.unknown()),
  resourceTemplates: z.array(z.unknown()),
  serverInfo: McpServerInfo.nullable().optional(),
  serverCapabilities: z.unknown().optional(),
  httpOrigin: z.string().nullable().optional(),
  pluginId: z.string().nullable().optional(),
}));
export type McpServerStatus = z.infer<typeof McpServerStatus>;

/** Result of `mcpServerStatus/list`. */
export const ListMcpServerStatusResponse = lazySchema(() => z.object({
  data: z.array(McpServerStatus),
  nextCursor: z.string().nullable().optional(),
}));

/** Params of `mcpServer/tool/call`: a tool of a ready MCP server, called by the client directly (no approval: the client asked). */
export const McpServerToolCallParams = lazySchema(() => z.object({
  threadId: z.string(),
  server: z.string(),
  tool: z.string(),
  arguments: z.unknown().optional(),
  _meta: z.unknown().optional(),
}));

/** Result of `mcpServer/tool/call`: what the tool returned. */
export const McpServerToolCallResponse = lazySchema(() => z.object({
  content: z.array(z.unknown()),
  structuredContent: z.unknown().optional(),
  isError: z.boolean().nullable().optional(),
  _meta: z.unknown().optional(),
}));

/** Params of `mcpServer/resource/read`. */
export const McpResourceReadParams = lazySchema(() => z.object({
  server: z.string(),
  uri: z.string(),
  threadId: z.string().nullable().optional(),
  connectorId: z.string().nullable().optional(),
  originCallId: z.string().nullable().optional(),
  target: z.unknown().optional(),
  _meta: z.record(z.string(), z.unknown()).nullable().optional(),
}));

/** One content of a read resource: text, or binary as base64. */
export const ResourceContent = lazySchema(() => z.union([
  z.object({ uri: z.string(), mimeType: z.string().nullable().optional(), text: z.string() }),
  z.object({ uri: z.string(), mimeType: z.string().nullable().optional(), blob: z.string() }),
]));

/** Result of `mcpServer/resource/read`. */
export const McpResourceReadResponse = lazySchema(() => z.object({ contents: z.array(ResourceContent), originCallId: z.string().nullable().optional() }));

/** Params of `mcpServer/oauth/login`: sign in to a streamable HTTP server that offers OAuth. */
export const McpServerOauthLoginParams = lazySchema(() => z.object({
  name: z.string(),
  scopes: z.array(z.string()).nullable().optional(),
  /** How long to wait for the browser (seconds; default 300). */
  timeoutSecs: z.number().int().positive().nullable().optional(),
  threadId: z.string().nullable().optional(),
  /** Codex's registration strategies; this server registers dynamically whatever is asked. */
  clientRegistration: z.enum(["auto", "cimd", "dcr"]).nullable().optional(),
}));

/** Result of `mcpServer/oauth/login`: where the user authorizes; `mcpServer/oauthLogin/completed` follows. */
export const McpServerOauthLoginResponse = lazySchema(() => z.object({ authorizationUrl: z.string(), loginId: z.string().nullable().optional() }));

/** `mcpServer/oauthLogin/completed`: how a login ended. */
export const McpServerOauthLoginCompletedNotification = lazySchema(() => z.object({
  name: z.string(),
  success: z.boolean(),
  error: z.string().nullable().optional(),
  loginId: z.string().nullable().optional(),
  threadId: z.string().nullable().optional(),
}));
