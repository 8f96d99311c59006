/**
 * The composition root: the one place that builds a server's parts (config store, thread store,
 * client hub, login shell, MCP manager, tool registry, ThreadManager) from its options and hands
 * them down. The layers below receive what they use; none of them builds another layer's objects.
 */
import path from "node:path";
import { builtInTools, hostOf, LoginShell, McpCredentialStore, McpManager, ToolRegistry, type Tool } from "./agent/index.js";
import { AuthStore } from "./config/authStore.js";
import { ConfigStore } from "./config/configStore.js";
import type { Config } from "./config/schema.js";
import type { ConfigWarningNotification } from "./protocol/notifications.js";
import { Activity } from "./runtime/activity.js";
import { systemClock, type Clock } from "./runtime/clock.js";
import { uuidV7Source, type IdSource } from "./runtime/ids.js";
import type { Logger } from "./runtime/logger.js";
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

/** How to build an {@link AppServer}. */
export interface AppServerOptions {
  /** The home directory (config, sessions); must exist. */
  readonly home: string;
  readonly config: Config;
  /** The config as it changes with `config/*` writes (default: `config` over `<home>/config.toml`, which writes edit). */
  readonly configStore?: ConfigStore;
  /** Problems in the config that did not stop the server; each client is told after `initialize`. */
  readonly configWarnings?: readonly ConfigWarningNotification[];
  readonly logger: Logger;
  readonly clock?: Clock;
  readonly ids?: IdSource;
  /** Directory that relative thread `cwd`s resolve against (default: the process cwd). */
  readonly cwd?: string;
  /** Longest accepted input line in bytes (default: config `max_message_bytes`, else 64 MiB). */
  readonly maxLineBytes?: number;
  /**
   * Requests one connection may have admitted and unanswered before -32001 (default: config
   * `max_pending_requests_per_connection`, else 128). Over all connections together the bound is
   * config `max_pending_requests_total` (default 1024).
   */
  readonly maxPendingRequests?: number;
  /** Write `"jsonrpc": "2.0"` on outgoing messages (Codex does not). */
  readonly includeJsonrpc?: boolean;
  /** Environment turns read API keys and provider URLs from (default: the process environment). */
  readonly env?: NodeJS.ProcessEnv;
  /** Tools offered to the model (default: the built-in tools). */
  readonly tools?: readonly Tool[];
  /** Append every message of every connection to JSONL files in this directory (secrets redacted). */
  readonly sessionLogDir?: string;
}

/** Builds a server from its options; call `init()` on it before connecting clients. */
export function buildAppServer(options: AppServerOptions): AppServer {
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
  // A slow or failing profile: logged, and a configWarning to clients once.
  const loginShell = new LoginShell(path.join(home, "shell_snapshots"), (summary, details) => hub.warnOnce(summary, details));
  // Read once, at start-up: MCP servers are those configured then (a config write starts or stops none).
  const startup = configStore.current;
  const mcpCredentials = new McpCredentialStore(home);
  const mcp = new McpManager({
    credentials: mcpCredentials,
    servers: startup.mcp_servers ?? {},
    env: host.env,
    logger,
    onStatus: (update) => hub.toInitialized("mcpServer/startupStatus/updated", update),
  });
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
      tools: new ToolRegistry(options.tools ?? builtInTools()),
      home,
      clock,
      loginShell,
      warnOnce: (summary, details) => hub.warnOnce(summary, details),
      mcpTools: () => mcp.tools(),
      skillRoots: () => skillRoots.current,
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
    mcpCredentials,
    loginShell,
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
