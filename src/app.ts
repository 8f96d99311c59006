/**
 * The composition root: the one place that builds a server's parts (config store, thread store,
 * client hub, login shell, MCP manager, tool registry, ThreadManager) from its options and hands
 * them down. The layers below receive what they use; none of them builds another layer's objects.
 */
import path from "node:path";
import {
  CommandSandbox,
  hostOf,
  LoginShell,
  mcpProgramPaths,
  McpCredentialStore,
  McpManager,
  ThreadMcpServers,
  type McpManagerOptions,
  type ModelTap,
  type Tool,
} from "./agent/index.js";
import { AuthStore } from "./config/authStore.js";
import { ConfigStore } from "./config/configStore.js";
import type { AppServerOptions } from "./embedding.js";
import { Activity } from "./runtime/activity.js";
import { systemClock } from "./runtime/clock.js";
import { uuidV7Source } from "./runtime/ids.js";
import { AppServer } from "./server/appServer.js";
import { ClientHub } from "./server/clientHub.js";
import type { ClientConnection } from "./server/connection.js";
import { logSecrets } from "./server/logSecrets.js";
import { SessionAudit } from "./server/sessionAudit.js";
import { ThreadManager } from "./threads/threadManager.js";
import { SectionStore } from "./threads/sectionStore.js";
import { AttachmentStore } from "./threads/attachmentStore.js";
import { ImportHistoryStore } from "./config/externalAgent/importHistory.js";
import { ThreadStore } from "./threads/threadStore.js";

/**
 * How to build an {@link AppServer}: the embedder's options (src/embedding.ts) plus the parts the
 * command line and tests supply themselves.
 */
export interface BuildOptions extends AppServerOptions {
  /** The config as it changes with `config/*` writes (default: `config` over `<home>/config.toml`, which writes edit). */
  readonly configStore?: ConfigStore;
  /** Tools offered to the model (default: the built-in tools). */
  readonly tools?: readonly Tool[];
  /** Paths of the server's own outside its home (listener sockets, token files, the audit log), masked in every sandbox. */
  readonly serverPaths?: readonly string[];
  /** Wraps each turn's model client (`record`). */
  readonly modelTap?: ModelTap | undefined;
  /** Deterministic mode: each command's output reaches clients as one delta, at its exit. */
  readonly steadyOutput?: boolean | undefined;
  /** MCP servers answered from a recording (a replay's), beside the configured ones. */
  readonly recordedMcp?: McpManagerOptions["recorded"];
}

/** Builds a server from its options; call `init()` on it before connecting clients. */
export function buildAppServer(options: BuildOptions): AppServer {
  const { home, logger } = options;
  const host = hostOf(options);
  const clock = options.clock ?? systemClock;
  // An embedder's config object acts like `-c` flags: it stays on top of whatever is written to config.toml.
  const configStore =
    options.configStore ??
    new ConfigStore(
      { config: options.config, layers: [{ source: { type: "sessionFlags" }, values: options.config }] },
      path.join(home, "config.toml"),
      Object.entries(options.config).map(([key, value]) => ({ path: [key], value, source: key })),
    );
  const hub = new ClientHub(clock, logger);
  const store = new ThreadStore(home, logger);
  const auth = new AuthStore(home);
  const skillRoots: { current: readonly string[] } = { current: [] };
  const ids = options.ids ?? uuidV7Source(clock);
  // Section ids are UUIDv7s, as Codex's.
  const sections = new SectionStore(home, () => ids.uuid("item"));
  const attachments = new AttachmentStore(home, () => ids.uuid("item"));
  const activity = new Activity();
  // Masks the home and the server's other paths (its listeners' sockets and token files) in every
  // sandbox, and keeps what MCP servers run (outside any sandbox) read-only there.
  // The servers running, not the config's: an ACP session adds its own (`mcp` and `threadMcp` are built below, before any command runs).
  const sandbox = new CommandSandbox(home, options.serverPaths ?? [], () =>
    [
      ...mcpProgramPaths({ ...configStore.current.mcp_servers, ...Object.fromEntries(mcp.servers().map((entry) => [entry.name, entry.config])) }, host.cwd, host.env),
      // Threads' servers may share names: by position.
      ...mcpProgramPaths(Object.fromEntries(threadMcp.servers().map((entry, k) => [k, entry.config])), host.cwd, host.env),
    ],
  );
  // A slow or failing profile: logged, and a configWarning to clients once.
  const loginShell = new LoginShell(path.join(home, "shell_snapshots"), sandbox, (summary, details) => hub.warnOnce(summary, details), {
    warnWhenSlow: options.timingWarnings !== false,
  });
  // Read once, at start-up: MCP servers are those configured then (a config write starts or stops none).
  const startup = configStore.current;
  const mcpCredentials = new McpCredentialStore(home);
  const mcp = new McpManager({
    credentials: mcpCredentials,
    servers: startup.mcp_servers ?? {},
    env: host.env,
    logger,
    onStatus: (update) => hub.toInitialized("mcpServer/startupStatus/updated", update),
    recorded: options.recordedMcp,
  });
  const threadMcp = new ThreadMcpServers({ credentials: mcpCredentials, env: host.env, logger });
  const threads = new ThreadManager<ClientConnection>({
    store,
    config: configStore,
    clock,
    ids,
    logger,
    host,
    unloadDelayMs: (startup.thread_unload_delay_secs ?? 60) * 1000,
    activity,
    agent: {
      env: host.env,
      tools: options.tools,
      home,
      sandbox,
      clock,
      loginShell,
      warnOnce: (summary, details) => hub.warnOnce(summary, details),
      mcpTools: (threadId) => threadMcp.tools(threadId, mcp),
      skillRoots: () => skillRoots.current,
      modelTap: options.modelTap,
      steadyOutput: options.steadyOutput,
    },
    requests: hub.requests,
    emit: hub.emit,
    auth,
    sections,
    attachments,
  });
  return new AppServer({
    home,
    host,
    logger,
    clock,
    configStore,
    configWarnings: options.configWarnings ?? [],
    hub,
    threads,
    store,
    auth,
    sections,
    attachments,
    importHistory: new ImportHistoryStore(home),
    ids,
    skillRoots,
    mcp,
    threadMcp,
    mcpCredentials,
    loginShell,
    sandbox,
    activity,
    audit: options.sessionLogDir ? new SessionAudit(options.sessionLogDir, clock) : undefined,
    secrets: logSecrets(host.env, configStore),
    maxLineBytes: options.maxLineBytes ?? startup.max_message_bytes,
    admission: {
      perConnection: options.maxPendingRequests ?? startup.max_pending_requests_per_connection,
      total: startup.max_pending_requests_total,
    },
    maxConcurrentReadBytes: startup.fs_max_concurrent_read_bytes,
    includeJsonrpc: options.includeJsonrpc,
  });
}
