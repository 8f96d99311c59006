import path from "node:path";
import type { Readable, Writable } from "node:stream";
import { ConfigStore } from "../config/configStore.js";
import type { Config } from "../config/schema.js";
import type { ConfigWarningNotification } from "../protocol/notifications.js";
import { Activity } from "../runtime/activity.js";
import { systemClock, type Clock } from "../runtime/clock.js";
import type { Logger } from "../runtime/logger.js";
import { NewlineMessageReader } from "../transport/lineReader.js";
import { NewlineMessageWriter } from "../transport/lineWriter.js";
import { ClientConnection, validateAnswer, type ConnectionHost } from "./connection.js";
import { Dispatcher, type HandlerTable } from "./dispatcher.js";
import { CommandProcesses } from "./commandProcesses.js";
import { LoginShell } from "../agent/exec/loginShell.js";
import { commandExecHandlers } from "./handlers/command.js";
import { configHandlers } from "./handlers/config.js";
import { modelHandlers } from "./handlers/model.js";
import { reviewHandlers } from "./handlers/review.js";
import { initializeHandler } from "./handlers/initialize.js";
import { startupQuestionHandlers } from "./handlers/startupQuestions.js";
import { fsHandlers } from "./handlers/fs.js";
import { fileSearchHandlers } from "./handlers/fuzzyFileSearch.js";
import { serverRoots } from "../workspace/allowedRoots.js";
import { RequestScheduler } from "./requestScheduler.js";
import { threadHandlers } from "./handlers/thread.js";
import { createNotification } from "./notifications.js";
import { uuidV7Source, type IdSource } from "../runtime/ids.js";
import { ThreadManager } from "../threads/threadManager.js";
import { ThreadStore } from "../threads/threadStore.js";
import { ServerRequestBroker } from "./serverRequests.js";
import { turnHandlers } from "./handlers/turn.js";
import { ToolRegistry, type Tool } from "../agent/tools/tool.js";
import { builtInTools } from "../agent/tools/builtInTools.js";
import { McpManager } from "../agent/mcp/mcpManager.js";
import { mcpHandlers } from "./handlers/mcpServerStatus.js";
import { secretValuesOf } from "./secretRedaction.js";
import { SessionAudit } from "./sessionAudit.js";

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
  /** Longest accepted input line in bytes (default 64 MiB). */
  readonly maxLineBytes?: number;
  /** Requests admitted at once before -32001 (default 128). */
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

/** The server: shared services plus any number of client connections over byte streams. */
export class AppServer implements ConnectionHost {
  readonly logger: Logger;
  readonly clock: Clock;
  readonly serverRequests = new ServerRequestBroker<ClientConnection>();
  readonly dispatcher: Dispatcher;
  readonly threads: ThreadManager<ClientConnection>;
  private readonly store: ThreadStore;
  private readonly connections = new Set<ClientConnection>();
  private readonly commandProcesses = new CommandProcesses();
  private stopping: Promise<void> | undefined;
  private readonly warned = new Set<string>();
  /** The configured MCP servers (`[mcp_servers]` as the server started), started by {@link init}. */
  private readonly mcp: McpManager;
  /** Login-profile snapshots for commands, in the home's shell_snapshots/ (removed at shutdown). */
  private readonly loginShell: LoginShell;
  readonly audit: SessionAudit | undefined;
  readonly secretValues: readonly string[];

  /** The configuration, as `config/*` writes change it. */
  readonly configStore: ConfigStore;

  constructor(private readonly options: AppServerOptions) {
    // An embedder's config object acts like `-c` flags: it stays on top of whatever is written to config.toml.
    this.configStore =
      options.configStore ??
      new ConfigStore(
        { config: options.config, layers: [{ source: { type: "sessionFlags" }, values: options.config }] },
        path.join(options.home, "config.toml"),
        Object.entries(options.config).map(([key, value]) => ({ path: [key], value, source: key })),
      );
    this.logger = options.logger;
    this.loginShell = new LoginShell(path.join(options.home, "shell_snapshots"));
    this.clock = options.clock ?? systemClock;
    this.store = new ThreadStore(options.home, this.logger);
    const activity = new Activity();
    this.secretValues = secretValuesOf(options.env ?? process.env);
    this.audit = options.sessionLogDir ? new SessionAudit(options.sessionLogDir, this.clock, this.secretValues) : undefined;
    this.mcp = new McpManager({
      servers: options.config.mcp_servers ?? {},
      env: options.env ?? process.env,
      logger: this.logger,
      onStatus: (update) => {
        const notification = createNotification(this.clock, "mcpServer/startupStatus/updated", update);
        // Clients that have not initialized yet get every status after their initialize response.
        for (const connection of this.connections) if (connection.client) void connection.notify(notification);
      },
    });
    this.threads = new ThreadManager<ClientConnection>({
      store: this.store,
      config: this.configStore,
      clock: this.clock,
      ids: options.ids ?? uuidV7Source(this.clock),
      logger: this.logger,
      serverCwd: options.cwd ?? process.cwd(),
      unloadDelayMs: (options.config.thread_unload_delay_secs ?? 60) * 1000,
      activity,
      agent: {
        env: options.env ?? process.env,
        tools: new ToolRegistry(options.tools ?? builtInTools()),
        home: options.home,
        clock: this.clock,
        loginShell: this.loginShell,
        warnOnce: (summary, details) => this.warnOnce(summary, details),
        mcpTools: () => this.mcp.tools(),
      },
      requests: {
        // Inside the server a request is known by its broker key; each connection sees its own id for it.
        open: (recipients, method, params) => {
          const { key, ids, response } = this.serverRequests.open(recipients, method);
          for (const [connection, id] of ids) connection.sendRequest(id, method, params);
          // Nobody to ask is an answer too: never wait on a request no client was sent.
          if (ids.size === 0) this.serverRequests.withdraw(key, "no client is subscribed to this thread");
          return { id: key, answer: response.then((result) => validateAnswer(method, result)) };
        },
        replay: (key, method, params, recipient) => {
          const id = this.serverRequests.addOwner(key, recipient);
          if (id !== null) recipient.sendRequest(id, method, params);
        },
        withdraw: (key, reason) => this.serverRequests.withdraw(key, reason),
        resolved: (key, recipients, threadId) => {
          const ids = this.serverRequests.release(key);
          // Stamped once, as every fanned-out notification is, then addressed with each connection's id.
          const notification = createNotification(this.clock, "serverRequest/resolved", { threadId, requestId: 0 });
          for (const connection of recipients) {
            const id = ids.get(connection);
            if (id !== undefined) void connection.notify({ ...notification, params: { threadId, requestId: id } });
          }
        },
        forget: (key) => void this.serverRequests.release(key),
      },
      emit: (recipients, method, params) => {
        const notification = createNotification(this.clock, method, params);
        for (const connection of recipients) void connection.notify(notification);
      },
    });
    const scheduler = new RequestScheduler(options.maxPendingRequests, activity);
    this.dispatcher = new Dispatcher(this.createHandlers(), scheduler, this.logger);
  }

  /** Loads stored state (the thread index); call once before connecting clients. */
  async init(): Promise<void> {
    // MCP servers start in the background: neither `initialize` nor turns wait for them.
    this.mcp.start();
    await this.store.init();
  }

  /** Serves one client over a pair of streams (stdio, a socket, or in-memory streams). */
  connect(input: Readable, output: Writable): ClientConnection {
    const reader = new NewlineMessageReader(input, { maxLineBytes: this.options.maxLineBytes });
    const writer = new NewlineMessageWriter(output, { includeJsonrpc: this.options.includeJsonrpc });
    const connection = new ClientConnection(this, reader, writer);
    this.connections.add(connection);
    // A client whose input ended may still be reading: its turns keep notifying until the output closes.
    connection.onOutputClosed(() => {
      this.connections.delete(connection);
      this.threads.dropSubscriber(connection);
    });
    connection.listen();
    return connection;
  }

  /**
   * Stops serving: reads no more input, answers every request already read, flushes every
   * connection, then closes them.
   */
  shutdown(): Promise<void> {
    this.stopping ??= (async () => {
      const connections = [...this.connections];
      for (const connection of connections) connection.stopReading();
      // A running command/exec is a request still unanswered: kill it so it answers now.
      this.commandProcesses.stop();
      await Promise.all(connections.map((connection) => connection.idle()));
      await this.threads.shutdown();
      await this.mcp.close();
      await this.loginShell.close();
      await Promise.all(connections.map((connection) => connection.close()));
      this.connections.clear();
    })();
    return this.stopping;
  }

  /** Sends a `configWarning` to every client, once per summary for the life of the server. */
  private warnOnce(summary: string, details: string): void {
    if (this.warned.has(summary)) return;
    this.warned.add(summary);
    this.logger.warn({ details }, summary);
    const notification = createNotification(this.clock, "configWarning", { summary, details });
    for (const connection of this.connections) void connection.notify(notification);
  }

  /**
   * Every method's handler. Where to find one: `src/server/handlers/<first segment of the method>.ts`
   * (`thread/start` → thread.ts, `fs/readFile` → fs.ts, `command/exec` → command.ts, `model/list` →
   * model.ts, `mcpServerStatus/list` → mcpServerStatus.ts, `fuzzyFileSearch` → fuzzyFileSearch.ts),
   * except two groups: `configRequirements/read` is in config.ts, and the start-up questions
   * (`account/*`, `hooks/list`, `skills/list`, `plugin/installed`, `collaborationMode/list`) are in
   * startupQuestions.ts.
   */
  private createHandlers(): HandlerTable {
    // Config is read at each request (configStore.current), so a config write reaches these methods at once.
    const roots = serverRoots(this.options.cwd ?? process.cwd(), () => this.configStore.current);
    return {
      initialize: initializeHandler({
        home: this.options.home,
        clock: this.clock,
        configWarnings: this.options.configWarnings ?? [],
        mcpStartupStatuses: () => this.mcp.startupStatuses(),
      }),
      ...threadHandlers(this.threads),
      ...turnHandlers(this.threads),
      ...reviewHandlers(this.threads),
      ...startupQuestionHandlers(),
      ...fsHandlers(roots),
      ...fileSearchHandlers(roots),
      ...mcpHandlers(this.mcp),
      ...commandExecHandlers({
        config: () => this.configStore.current,
        home: this.options.home,
        serverCwd: this.options.cwd ?? process.cwd(),
        env: this.options.env ?? process.env,
        clock: this.clock,
        processes: this.commandProcesses,
      }),
      ...configHandlers({ store: this.configStore }),
      ...modelHandlers({ store: this.configStore, env: this.options.env ?? process.env }),
    };
  }
}
