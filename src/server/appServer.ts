/**
 * The server: serves clients over byte streams with the parts the composition root (src/app.ts)
 * built, and owns what is per-connection (dispatch, command/exec processes) and shutdown.
 */
import os from "node:os";
import type { Readable, Writable } from "node:stream";
import type { CommandSandbox, Host, LoginShell, McpCredentialStore, McpManager, McpServerEntry, ThreadMcpServers } from "../agent/index.js";
import type { AuthStore } from "../config/authStore.js";
import type { ConfigStore } from "../config/configStore.js";
import type { McpServerConfig } from "../config/schema.js";
import type { ConfigWarningNotification } from "../protocol/notifications.js";
import type { Activity } from "../runtime/activity.js";
import type { Clock } from "../runtime/clock.js";
import type { Logger } from "../runtime/logger.js";
import type { ThreadManager } from "../threads/threadManager.js";
import type { SectionStore } from "../threads/sectionStore.js";
import type { AttachmentStore } from "../threads/attachmentStore.js";
import type { ImportHistoryStore } from "../config/externalAgent/importHistory.js";
import type { IdSource } from "../runtime/ids.js";
import { externalAgentConfigHandlers } from "./handlers/externalAgentConfig.js";
import type { ThreadStore } from "../threads/threadStore.js";
import { NewlineMessageReader } from "../transport/lineReader.js";
import { NewlineMessageWriter } from "../transport/lineWriter.js";
import { serverRoots } from "../workspace/allowedRoots.js";
import type { ClientHub } from "./clientHub.js";
import { CommandProcesses } from "./commandProcesses.js";
import { FsWatches } from "./fsWatches.js";
import { McpOAuthLogins } from "./mcpOAuthLogins.js";
import type { KnownSecrets } from "./secretRedaction.js";
import { ByteBudget, DEFAULT_MAX_CONCURRENT_READ_BYTES } from "./byteBudget.js";
import { ClientConnection, type ConnectionHost } from "./connection.js";
import { Dispatcher, type HandlerTable } from "./dispatcher.js";
import { accountHandlers } from "./handlers/account.js";
import { commandExecHandlers } from "./handlers/command.js";
import { configHandlers } from "./handlers/config.js";
import { fileSearchHandlers } from "./handlers/fuzzyFileSearch.js";
import { fsHandlers } from "./handlers/fs.js";
import { initializeHandler } from "./handlers/initialize.js";
import { mcpServerHandlers } from "./handlers/mcpServer.js";
import { mcpHandlers } from "./handlers/mcpServerStatus.js";
import { modelHandlers } from "./handlers/model.js";
import { modelProviderHandlers } from "./handlers/modelProvider.js";
import { experimentalFeatureHandlers } from "./handlers/experimentalFeature.js";
import { feedbackHandlers } from "./handlers/feedback.js";
import { permissionProfileHandlers } from "./handlers/permissionProfile.js";
import { reviewHandlers } from "./handlers/review.js";
import { skillsHandlers } from "./handlers/skills.js";
import { startupQuestionHandlers } from "./handlers/startupQuestions.js";
import { threadHandlers } from "./handlers/thread.js";
import { threadSectionHandlers } from "./handlers/threadSection.js";
import { turnHandlers } from "./handlers/turn.js";
import { RequestScheduler, type AdmissionLimits } from "./requestScheduler.js";
import type { ServerRequestBroker } from "./serverRequests.js";
import type { SessionAudit } from "./sessionAudit.js";

/** The parts a server is made of, built by the composition root (src/app.ts). */
export interface AppServerParts {
  /** The home directory (config, sessions). */
  readonly home: string;
  /** Where the server runs: the cwd relative paths resolve against, and the environment. */
  readonly host: Host;
  readonly logger: Logger;
  readonly clock: Clock;
  /** The configuration, as `config/*` writes change it. */
  readonly configStore: ConfigStore;
  /** Problems in the config that did not stop the server; each client is told after `initialize`. */
  readonly configWarnings: readonly ConfigWarningNotification[];
  readonly hub: ClientHub;
  readonly threads: ThreadManager<ClientConnection>;
  readonly store: ThreadStore;
  /** The API key a client logged in with (auth.json), loaded by {@link AppServer.init}. */
  readonly auth: AuthStore;
  /** The thread sections (thread_sections.json), loaded by {@link AppServer.init}. */
  readonly sections: SectionStore;
  /** The thread attachments (thread_attachments.json), loaded by {@link AppServer.init}. */
  readonly attachments: AttachmentStore;
  /** The record of external-agent imports (external_agent_imports.json), loaded by {@link AppServer.init}. */
  readonly importHistory: ImportHistoryStore;
  /** Where ids come from (the import ids of externalAgentConfig/import). */
  readonly ids: IdSource;
  /** Extra directories skills are found in, as `skills/extraRoots/set` last set them (turns read them too). */
  readonly skillRoots: { current: readonly string[] };
  /** The configured MCP servers, started by {@link AppServer.init}. */
  readonly mcp: McpManager;
  /** The MCP servers of single threads (an ACP session's). */
  readonly threadMcp: ThreadMcpServers;
  /** The OAuth credentials of MCP servers (mcp_oauth_credentials.json), loaded by {@link AppServer.init} before they start. */
  readonly mcpCredentials: McpCredentialStore;
  /** Login-profile snapshots for commands (removed at shutdown). */
  readonly loginShell: LoginShell;
  readonly sandbox: CommandSandbox;
  readonly activity: Activity;
  readonly audit: SessionAudit | undefined;
  /** The secret values to mask in logs, as the config stands now. */
  readonly secrets: () => KnownSecrets;
  /** Longest accepted input line in bytes (default 64 MiB). */
  readonly maxLineBytes?: number;
  /** Requests admitted and unanswered before -32001, per connection and in total (defaults 128 and 1024). */
  readonly admission?: AdmissionLimits;
  /** Bytes of files `fs/readFile` holds at once, over all connections (default 128 MiB). */
  readonly maxConcurrentReadBytes?: number;
  /** Write `"jsonrpc": "2.0"` on outgoing messages (Codex does not). */
  readonly includeJsonrpc?: boolean;
}

/** The server: shared services plus any number of client connections over byte streams. */
export class AppServer implements ConnectionHost {
  readonly logger: Logger;
  readonly dispatcher: Dispatcher;
  readonly threads: ThreadManager<ClientConnection>;
  readonly audit: SessionAudit | undefined;
  readonly secrets: () => KnownSecrets;
  /** The configuration, as `config/*` writes change it. */
  readonly configStore: ConfigStore;
  private readonly commandProcesses = new CommandProcesses();
  private readonly fsWatches = new FsWatches();
  private readonly reads: ByteBudget;
  private readonly oauthLogins: McpOAuthLogins;
  private stopping: Promise<void> | undefined;

  constructor(private readonly parts: AppServerParts) {
    this.logger = parts.logger;
    this.threads = parts.threads;
    this.audit = parts.audit;
    this.secrets = parts.secrets;
    this.configStore = parts.configStore;
    this.reads = new ByteBudget(parts.maxConcurrentReadBytes ?? DEFAULT_MAX_CONCURRENT_READ_BYTES);
    this.oauthLogins = new McpOAuthLogins({
      mcp: parts.mcp,
      config: () => this.configStore.current,
      credentials: parts.mcpCredentials,
      hub: parts.hub,
      newId: () => parts.ids.uuid("item"),
    });
    const scheduler = new RequestScheduler(parts.admission, parts.activity);
    this.dispatcher = new Dispatcher(this.createHandlers(), scheduler, this.logger);
  }

  /** The configured MCP servers and where each is (`record` keeps the listings of those ready). */
  mcpServers(): McpServerEntry[] {
    return this.parts.mcp.servers();
  }

  /** Starts MCP servers for one thread only (an ACP session's); resolves once each is ready or failed. */
  addThreadMcpServers(threadId: string, servers: Readonly<Record<string, McpServerConfig>>): Promise<void> {
    return this.parts.threadMcp.add(threadId, servers);
  }

  /** Stops the MCP servers of one thread (its ACP session closed). */
  closeThreadMcpServers(threadId: string): Promise<void> {
    return this.parts.threadMcp.close(threadId);
  }

  /** Server → client requests in flight, across every connection. */
  get serverRequests(): ServerRequestBroker<ClientConnection> {
    return this.parts.hub.serverRequests;
  }

  /** Loads stored state (the thread index); call once before connecting clients. */
  async init(): Promise<void> {
    // MCP servers start in the background: neither `initialize` nor turns wait for them (only for their stored logins).
    await this.parts.mcpCredentials.load();
    this.parts.mcp.start();
    await Promise.all([this.parts.store.init(), this.parts.auth.load(), this.parts.sections.load(), this.parts.attachments.load(), this.parts.importHistory.load()]);
  }

  /** Serves one client over a pair of streams (stdio, a socket, or in-memory streams). */
  connect(input: Readable, output: Writable): ClientConnection {
    const reader = new NewlineMessageReader(input, { maxLineBytes: this.parts.maxLineBytes });
    const writer = new NewlineMessageWriter(output, { includeJsonrpc: this.parts.includeJsonrpc });
    const connection = new ClientConnection(this, reader, writer);
    const { connections } = this.parts.hub;
    connections.add(connection);
    // A client whose input ended may still be reading: its turns keep notifying until the output closes.
    connection.onOutputClosed(() => {
      connections.delete(connection);
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
      const connections = [...this.parts.hub.connections];
      for (const connection of connections) connection.stopReading();
      // A running command/exec is a request still unanswered: kill it so it answers now.
      this.commandProcesses.stop();
      this.fsWatches.stop();
      this.oauthLogins.stop();
      await Promise.all(connections.map((connection) => connection.idle()));
      await this.threads.shutdown();
      await Promise.all([this.parts.mcp.close(), this.parts.threadMcp.closeAll()]);
      await this.parts.loginShell.close();
      this.parts.sandbox.close();
      await Promise.all(connections.map((connection) => connection.close()));
      this.parts.hub.connections.clear();
    })();
    return this.stopping;
  }

  /**
   * Every method's handler. Where to find one: `src/server/handlers/<first segment of the method>.ts`
   * (`thread/start` → thread.ts, `fs/readFile` → fs.ts, `command/exec` → command.ts, `model/list` →
   * model.ts, `mcpServerStatus/list` → mcpServerStatus.ts, `fuzzyFileSearch` → fuzzyFileSearch.ts),
   * except two groups: `configRequirements/read` is in config.ts, and the start-up questions
   * (`hooks/list`, `skills/list`, `plugin/installed`, `collaborationMode/list`) are in
   * startupQuestions.ts.
   */
  private createHandlers(): HandlerTable {
    // Config is read at each request (configStore.current), so a config write reaches these methods at once.
    const { home, host, clock, mcp } = this.parts;
    const roots = serverRoots(host.cwd, () => this.configStore.current);
    const reloadMcpServers = () => mcp.reload(this.configStore.current.mcp_servers ?? {});
    return {
      initialize: initializeHandler({
        home,
        clock,
        configWarnings: this.parts.configWarnings,
        mcpStartupStatuses: () => mcp.startupStatuses(),
      }),
      ...threadHandlers(this.threads),
      ...turnHandlers(this.threads),
      ...reviewHandlers(this.threads),
      ...startupQuestionHandlers(),
      ...skillsHandlers({ store: this.configStore, home, defaultCwd: host.cwd, extraRoots: this.parts.skillRoots }),
      ...accountHandlers(this.parts.auth, this.parts.hub),
      ...permissionProfileHandlers(),
      ...feedbackHandlers({ roots, threadFile: (threadId) => this.parts.store.summary(threadId)?.path, clock, reads: this.reads }),
      ...threadSectionHandlers(this.parts.sections),
      ...experimentalFeatureHandlers(this.configStore),
      ...fsHandlers(roots, { watches: this.fsWatches, clock, logger: this.logger, reads: this.reads }),
      ...fileSearchHandlers(roots),
      ...mcpHandlers(mcp, this.parts.mcpCredentials),
      ...mcpServerHandlers({ mcp, requireThread: (threadId) => void this.threads.get(threadId), oauthLogins: this.oauthLogins }),
      ...commandExecHandlers({ config: () => this.configStore.current, sandbox: this.parts.sandbox, host, clock, processes: this.commandProcesses }),
      ...configHandlers({ store: this.configStore, reloadMcpServers }),
      ...externalAgentConfigHandlers({
        migration: {
          places: { userHome: host.env.HOME ?? os.homedir(), home },
          configFile: this.configStore.file,
          config: () => this.configStore.current,
          writeConfig: async (edits) => void (await this.configStore.write(edits, null)),
        },
        history: this.parts.importHistory,
        hub: this.parts.hub,
        clock,
        newId: () => this.parts.ids.uuid("item"),
        reloadMcpServers,
      }),
      ...modelHandlers({ store: this.configStore, host, providerEnv: () => this.parts.auth.environment(host.env), logger: this.logger }),
      ...modelProviderHandlers({ store: this.configStore, host, providerEnv: () => host.env }),
    };
  }
}
