import type { Readable } from "node:stream";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { McpServerConfig } from "../../config/schema.js";
import type { Logger } from "../../runtime/logger.js";
import { SERVER_VERSION } from "../../runtime/version.js";
import { COMMAND_MARKER, killMarked, newCommandMarker } from "../exec/commandMarker.js";
import { storedOAuthProvider, type McpCredentialStore } from "./mcpCredentials.js";
import { loadMcpSdk } from "./mcpSdk.js";

/** A tool as its server listed it. */
export type McpToolDefinition = Awaited<ReturnType<Client["listTools"]>>["tools"][number];

/** What an MCP tool returned (`isError` when the tool itself reports a failure). */
export interface McpCallResult {
  readonly content: readonly unknown[];
  readonly structuredContent?: unknown;
  readonly isError: boolean;
}

/** One tool call's outcome: the tool's result, or why there is none. */
export type McpCallOutcome = { readonly ok: true; readonly result: McpCallResult } | { readonly ok: false; readonly message: string };

/** A started MCP server with its tools listed. */
export interface McpConnection {
  readonly tools: readonly McpToolDefinition[];
  readonly serverInfo: ReturnType<Client["getServerVersion"]> | null;
  readonly capabilities: ReturnType<Client["getServerCapabilities"]> | null;
  /** Calls `tool`; an interrupted call rejects with `signal`'s reason. */
  callTool(tool: string, args: Record<string, unknown>, options: { readonly signal: AbortSignal; readonly timeoutMs: number }): Promise<McpCallOutcome>;
  /** Reads a resource the server offers (`resources/read`); rejects with the server's error. */
  readResource(uri: string, options: { readonly timeoutMs: number }): Promise<readonly McpResourceContent[]>;
  /** Ends the connection, killing a stdio server that does not exit when its stdin closes. */
  close(): Promise<void>;
}

/** One content of a read resource: text, or binary as base64 (`blob`). */
export type McpResourceContent =
  | { readonly uri: string; readonly mimeType?: string | null; readonly text: string }
  | { readonly uri: string; readonly mimeType?: string | null; readonly blob: string };

/** How a failed start says that the server wants an OAuth login (mcpServerStatus/list reads it as `notLoggedIn`). */
export const NEEDS_LOGIN = "the server requires an OAuth login: call mcpServer/oauth/login";

/** Why a server could not start, in words for the user (the `error` of its failed status). */
export class McpStartupError extends Error {}

/** How to connect one server. */
export interface ConnectOptions {
  readonly env: NodeJS.ProcessEnv;
  readonly logger: Logger;
  /** Bounds starting and listing tools (`startup_timeout_sec`). */
  readonly timeoutMs: number;
  /** Aborted when the app-server shuts down while the server is still starting. */
  readonly signal: AbortSignal;
  /** Called when the connection ends after it was established (the server exited or hung up). */
  readonly onClosed: () => void;
  /** OAuth credentials of HTTP servers that logged in (`mcpServer/oauth/login`). */
  readonly credentials: McpCredentialStore;
}

// A stdio server gets this long to exit once its stdin closes before it is killed, so shutdown stays within its deadline.
const CLOSE_GRACE_MS = 400;
// Lines of a stdio server's stderr kept to explain a failed start.
const STDERR_TAIL_LINES = 5;

/**
 * Starts MCP server `name` (a stdio command, or a streamable HTTP endpoint), initializes it and
 * lists its tools; throws {@link McpStartupError} saying what went wrong (the SDK not installed
 * included: it is an optional peer dependency). The SDK loads on first use.
 */
export async function connectMcpServer(name: string, config: McpServerConfig, options: ConnectOptions): Promise<McpConnection> {
  const [{ Client }, { ErrorCode }] = await loadMcpSdk(
    () => Promise.all([import("@modelcontextprotocol/sdk/client/index.js"), import("@modelcontextprotocol/sdk/types.js")]),
    (message) => new McpStartupError(message),
  );
  const stderrTail: string[] = [];
  const { transport, pid, marker } = await openTransport(name, config, options, stderrTail);
  const client = new Client({ name: "agent-app-server", version: SERVER_VERSION });
  let established = false;
  const closed = new Promise<void>((resolve) => {
    client.onclose = () => {
      resolve();
      if (established) options.onClosed();
    };
  });
  // A stdio server's own children carry its command id: they go with it, however they detached.
  const close = () => closeClient(client, pid(), closed).then(() => void (marker && killMarked(marker)));
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const request = { signal: AbortSignal.any([options.signal, deadline]), timeout: options.timeoutMs };
  try {
    await client.connect(transport, request);
    const tools: McpToolDefinition[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor }, request);
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    established = true;
    return {
      tools,
      serverInfo: client.getServerVersion() ?? null,
      capabilities: client.getServerCapabilities() ?? null,
      close,
      async readResource(uri, { timeoutMs }) {
        const result = await client.readResource({ uri }, { timeout: timeoutMs });
        return result.contents.map((content) =>
          "text" in content && typeof content.text === "string"
            ? { uri: content.uri, mimeType: content.mimeType ?? null, text: content.text }
            : { uri: content.uri, mimeType: content.mimeType ?? null, blob: String((content as { blob?: unknown }).blob ?? "") },
        );
      },
      async callTool(tool, args, { signal, timeoutMs }) {
        try {
          const result = await client.callTool({ name: tool, arguments: args }, undefined, { signal, timeout: timeoutMs });
          const content = Array.isArray(result.content) ? (result.content as unknown[]) : [];
          return { ok: true, result: { content, structuredContent: result.structuredContent, isError: result.isError === true } };
        } catch (error) {
          if (signal.aborted) throw signal.reason;
          const timedOut = (error as { code?: unknown }).code === ErrorCode.RequestTimeout;
          const message = timedOut
            ? `timed out after ${timeoutMs / 1000} s; raise tool_timeout_sec in [mcp_servers.${name}] if the tool needs longer`
            : (error as Error).message;
          return { ok: false, message };
        }
      },
    };
  } catch (error) {
    await close();
    if (deadline.aborted) {
      throw new McpStartupError(`timed out after ${options.timeoutMs / 1000} s starting; raise startup_timeout_sec in [mcp_servers.${name}] if it needs longer`);
    }
    if ((error as { code?: unknown }).code === 401 || (error as Error).name === "UnauthorizedError") {
      throw new McpStartupError(`${NEEDS_LOGIN} (${(error as Error).message})`);
    }
    if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      // Node says ENOENT for a missing command and for a missing cwd alike.
      throw new McpStartupError(`could not run \`${config.command}\`${config.cwd ? ` in ${config.cwd}` : ""}: no such file or directory`);
    }
    const closedEarly = (error as { code?: unknown }).code === ErrorCode.ConnectionClosed;
    const why = closedEarly ? "the server exited (or closed its connection) before it finished starting" : (error as Error).message;
    const said = stderrTail.length > 0 ? `; its stderr ended with: ${stderrTail.join(" | ")}` : "";
    throw new McpStartupError(`${why}${said}`);
  }
}

/** The transport `config` asks for; a stdio server's stderr goes to the log, never to our stdout. */
async function openTransport(
  name: string,
  config: McpServerConfig,
  { env, logger, credentials }: ConnectOptions,
  stderrTail: string[],
): Promise<{ transport: Transport; pid: () => number | null; marker: string | null }> {
  if (config.command !== undefined && config.url !== undefined) {
    throw new McpStartupError(`[mcp_servers.${name}] sets both \`command\` and \`url\`; keep one`);
  }
  if (config.command !== undefined) {
    const { StdioClientTransport, DEFAULT_INHERITED_ENV_VARS } = await import("@modelcontextprotocol/sdk/client/stdio.js");
    // As Codex: a few basics from our environment (not API keys), those `env_vars` names, plus what the config sets.
    const passed = [...DEFAULT_INHERITED_ENV_VARS, ...(config.env_vars ?? [])];
    const inherited = Object.fromEntries(passed.flatMap((key) => (env[key] === undefined ? [] : [[key, env[key]!]])));
    const marker = newCommandMarker();
    const transport = new StdioClientTransport({
      command: config.command,
      args: config.args ?? [],
      env: { ...inherited, ...config.env, [COMMAND_MARKER]: marker },
      cwd: config.cwd,
      stderr: "pipe",
    });
    // Loaded here, not at start-up: only a stdio MCP server needs it.
    const { createInterface } = await import("node:readline");
    createInterface({ input: transport.stderr as Readable }).on("line", (line) => {
      logger.info({ mcpServer: name }, line);
      stderrTail.push(line);
      if (stderrTail.length > STDERR_TAIL_LINES) stderrTail.shift();
    });
    let pid: number | null = null;
    const start = transport.start.bind(transport);
    // The transport forgets its pid as soon as it starts closing; keep it to kill a server that lingers.
    transport.start = async () => {
      await start();
      pid = transport.pid;
    };
    return { transport, pid: () => pid, marker };
  }
  if (config.url !== undefined) {
    let url: URL;
    try {
      url = new URL(config.url);
    } catch {
      throw new McpStartupError(`[mcp_servers.${name}] url is not a valid URL: ${config.url}`);
    }
    const token = bearerToken(name, config, env);
    const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
    // A bearer token from the environment wins; else the tokens of an OAuth login, if there was one.
    const oauth = !token && credentials.tokens(name, config.url) ? storedOAuthProvider(credentials, name, config.url) : undefined;
    const headers = { ...config.http_headers, ...(token ? { Authorization: `Bearer ${token}` } : {}) };
    const transport = new StreamableHTTPClientTransport(url, { ...(Object.keys(headers).length > 0 ? { requestInit: { headers } } : {}), ...(oauth ? { authProvider: oauth } : {}) });
    return { transport, pid: () => null, marker: null };
  }
  throw new McpStartupError(`[mcp_servers.${name}] needs \`command\` (a stdio server) or \`url\` (a streamable HTTP server)`);
}

/** The bearer token from `bearer_token_env_var`, as Codex: a named variable must be set and non-empty. */
function bearerToken(name: string, config: McpServerConfig, env: NodeJS.ProcessEnv): string | null {
  const variable = config.bearer_token_env_var;
  if (variable === undefined) return null;
  const value = env[variable];
  if (!value) throw new McpStartupError(`environment variable ${variable} (bearer_token_env_var of [mcp_servers.${name}]) is ${value === undefined ? "not set" : "empty"}`);
  return value;
}

/** Closes the client; a stdio server still running after a short grace is killed. */
async function closeClient(client: Client, pid: number | null, closed: Promise<void>): Promise<void> {
  const done = client.close().catch(() => undefined);
  if (pid === null) {
    await within(done, CLOSE_GRACE_MS);
    return;
  }
  if (await within(closed, CLOSE_GRACE_MS)) return;
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // Already gone.
  }
  await within(closed, CLOSE_GRACE_MS);
}

/** Whether `promise` settles within `ms`. */
function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  return Promise.race([promise.then(() => true), timeout]).finally(() => clearTimeout(timer));
}
