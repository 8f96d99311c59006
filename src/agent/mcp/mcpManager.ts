import type { McpServerConfig } from "../../config/schema.js";
import type { McpServerStatusUpdatedNotification } from "../../protocol/mcpMethods.js";
import type { Logger } from "../../runtime/logger.js";
import type { Tool } from "../tools/tool.js";
import { connectMcpServer, McpStartupError, type McpConnection } from "./mcpConnection.js";
import type { McpCredentialStore } from "./mcpCredentials.js";
import { mcpTools } from "./mcpTools.js";
import { serverNameProblem } from "./toolNames.js";

/** Codex's defaults for `startup_timeout_sec` and `tool_timeout_sec`. */
const DEFAULT_STARTUP_TIMEOUT_SEC = 10;
const DEFAULT_TOOL_TIMEOUT_SEC = 60;

/** Where one configured server is. */
export type McpServerState =
  | { readonly status: "disabled" }
  | { readonly status: "starting" }
  | { readonly status: "ready"; readonly connection: McpConnection; readonly tools: readonly Tool[] }
  | { readonly status: "failed"; readonly error: string };

/** A configured server and its state. */
export interface McpServerEntry {
  readonly name: string;
  readonly config: McpServerConfig;
  readonly state: McpServerState;
}

/** What the manager needs. */
export interface McpManagerOptions {
  /** `[mcp_servers]` of the config. */
  readonly servers: Readonly<Record<string, McpServerConfig>>;
  readonly env: NodeJS.ProcessEnv;
  readonly logger: Logger;
  /** Told of every startup status change (for `mcpServer/startupStatus/updated`). */
  readonly onStatus: (update: McpServerStatusUpdatedNotification) => void;
  /** OAuth credentials of HTTP servers that logged in. */
  readonly credentials: McpCredentialStore;
  /**
   * Servers answered by a connection already made (a replay's recorded servers), by name: they
   * stand beside the configured ones, over any of the same name, reloads included.
   */
  readonly recorded?: Readonly<Record<string, { readonly config: McpServerConfig; readonly connection: McpConnection }>>;
}

/**
 * The configured MCP servers: started in the background (turns and requests never wait for them),
 * their tools offered while they are ready, all of them closed on shutdown.
 */
export class McpManager {
  private readonly entries = new Map<string, McpServerEntry>();
  private readonly stopping = new AbortController();
  private readonly startups: Promise<void>[] = [];

  constructor(private readonly options: McpManagerOptions) {
    for (const [name, config] of Object.entries(this.withRecorded(options.servers)).sort(([a], [b]) => a.localeCompare(b))) {
      this.entries.set(name, { name, config, state: config.enabled === false ? { status: "disabled" } : { status: "starting" } });
    }
  }

  /** Starts every enabled server; returns at once. */
  start(): void {
    for (const entry of this.entries.values()) {
      if (entry.state.status !== "starting") continue;
      this.options.onStatus({ name: entry.name, status: "starting" });
      this.startups.push(this.connect(entry.name, entry.config));
    }
  }

  /** Every configured server, by name. */
  servers(): McpServerEntry[] {
    return [...this.entries.values()];
  }

  /** The startup status of every enabled server now, for a client that connects later. */
  startupStatuses(): McpServerStatusUpdatedNotification[] {
    return this.servers().flatMap((entry) => {
      const { state } = entry;
      if (state.status === "disabled") return [];
      return [state.status === "failed" ? { name: entry.name, status: "failed", error: state.error } : { name: entry.name, status: state.status }];
    });
  }

  /** The tools of the servers ready now, but those named in `except`. */
  tools(except?: ReadonlySet<string>): Tool[] {
    return this.servers().flatMap((entry) => (entry.state.status === "ready" && !except?.has(entry.name) ? entry.state.tools : []));
  }

  /** The ready connection of server `name`, with its tool timeout; or why there is none, in words for the client. */
  connection(name: string): { readonly connection: McpConnection; readonly timeoutMs: number } | { readonly problem: string } {
    const entry = this.entries.get(name);
    if (!entry) return { problem: `no MCP server named \`${name}\` is configured` };
    const { state } = entry;
    if (state.status === "ready") return { connection: state.connection, timeoutMs: (entry.config.tool_timeout_sec ?? DEFAULT_TOOL_TIMEOUT_SEC) * 1000 };
    if (state.status === "failed") return { problem: state.error };
    return { problem: `MCP server \`${name}\` is ${state.status === "disabled" ? "disabled (enabled = false)" : "still starting"}` };
  }

  /**
   * `config/mcpServer/reload`: the servers of the config as it is now. Servers that were removed
   * or changed are stopped; new and changed ones start; unchanged ones keep running untouched.
   */
  async reload(configured: Readonly<Record<string, McpServerConfig>>): Promise<void> {
    if (this.stopping.signal.aborted) return;
    const servers = this.withRecorded(configured);
    const stops: Promise<void>[] = [];
    for (const [name, entry] of this.entries) {
      const next = servers[name];
      if (next !== undefined && JSON.stringify(next) === JSON.stringify(entry.config)) continue;
      if (entry.state.status === "ready") stops.push(entry.state.connection.close());
      this.entries.delete(name);
    }
    await Promise.all(stops);
    for (const [name, config] of Object.entries(servers).sort(([a], [b]) => a.localeCompare(b))) {
      if (this.entries.has(name)) continue;
      this.entries.set(name, { name, config, state: config.enabled === false ? { status: "disabled" } : { status: "starting" } });
      if (config.enabled === false) continue;
      this.options.onStatus({ name, status: "starting" });
      this.startups.push(this.connect(name, config));
    }
  }

  /**
   * Starts servers besides those it has (a thread's: see ThreadMcpServers), each unless one of that
   * name runs already with the same config (a changed one restarts with the new), and resolves once
   * every start has ended, ready or failed (each bounded by its startup timeout): the session's
   * first prompt then has their tools.
   */
  async add(servers: Readonly<Record<string, McpServerConfig>>): Promise<void> {
    const current = Object.fromEntries(this.servers().map((entry) => [entry.name, entry.config]));
    await this.reload({ ...current, ...servers });
    await Promise.all(this.startups);
  }

  /** Starts server `name` again with its current config (after an OAuth login); a disabled one stays off. */
  async restart(name: string): Promise<void> {
    const entry = this.entries.get(name);
    if (!entry || this.stopping.signal.aborted) return;
    if (entry.state.status === "ready") await entry.state.connection.close();
    const config = { ...entry.config };
    this.entries.set(name, { name, config, state: config.enabled === false ? { status: "disabled" } : { status: "starting" } });
    if (config.enabled === false) return;
    this.options.onStatus({ name, status: "starting" });
    this.startups.push(this.connect(name, config));
  }

  /** Stops servers still starting and closes every connection (killing stdio servers that linger). */
  async close(): Promise<void> {
    this.stopping.abort();
    // A server cut short while starting is closed by its own start; wait for that too.
    await Promise.all(this.startups);
    await Promise.all(this.servers().map((entry) => (entry.state.status === "ready" ? entry.state.connection.close() : undefined)));
  }

  private async connect(name: string, config: McpServerConfig): Promise<void> {
    const nameProblem = serverNameProblem(name);
    if (nameProblem) return this.fail(name, config, nameProblem);
    let connection: McpConnection;
    try {
      const recorded = this.options.recorded?.[name];
      connection = recorded ? recorded.connection : await connectMcpServer(name, config, {
        env: this.options.env,
        logger: this.options.logger,
        timeoutMs: (config.startup_timeout_sec ?? DEFAULT_STARTUP_TIMEOUT_SEC) * 1000,
        signal: this.stopping.signal,
        credentials: this.options.credentials,
        onClosed: () => {
          if (!this.stopping.signal.aborted) this.fail(name, config, "the server closed the connection; its tools are no longer offered");
        },
      });
    } catch (error) {
      if (this.stopping.signal.aborted) return;
      if (!(error instanceof McpStartupError)) this.options.logger.error({ err: error, mcpServer: name }, "MCP server start failed unexpectedly");
      return this.fail(name, config, (error as Error).message);
    }
    // Shut down, or removed or changed by a reload, while it was starting: closed, not offered.
    if (this.stopping.signal.aborted || !this.isCurrent(name, config)) return void (await connection.close());
    const tools = mcpTools(name, connection, (config.tool_timeout_sec ?? DEFAULT_TOOL_TIMEOUT_SEC) * 1000);
    this.entries.set(name, { name, config, state: { status: "ready", connection, tools } });
    this.options.logger.info({ mcpServer: name, tools: connection.tools.length }, "MCP server ready");
    this.options.onStatus({ name, status: "ready" });
  }

  /** The configured servers with the recorded ones over them. */
  private withRecorded(servers: Readonly<Record<string, McpServerConfig>>): Readonly<Record<string, McpServerConfig>> {
    const recorded = Object.entries(this.options.recorded ?? {}).map(([name, { config }]) => [name, config] as const);
    return recorded.length === 0 ? servers : { ...servers, ...Object.fromEntries(recorded) };
  }

  /** Whether `config` is still what server `name` runs with (a reload may have replaced or removed it). */
  private isCurrent(name: string, config: McpServerConfig): boolean {
    return this.entries.get(name)?.config === config;
  }

  private fail(name: string, config: McpServerConfig, reason: string): void {
    if (!this.isCurrent(name, config)) return;
    const error = `MCP server \`${name}\` failed: ${reason}`;
    this.entries.set(name, { name, config, state: { status: "failed", error } });
    this.options.logger.warn({ mcpServer: name }, error);
    this.options.onStatus({ name, status: "failed", error });
  }
}
