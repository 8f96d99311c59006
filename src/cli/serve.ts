import { readFile, unlink } from "node:fs/promises";
import path from "node:path";
import { createHash } from "node:crypto";
import { ensureHome, resolveHome } from "../config/home.js";
import { ConfigStore } from "../config/configStore.js";
import { loadConfig } from "../config/load.js";
import type { ConfigOverride } from "../config/overrides.js";
import { systemClock } from "../runtime/clock.js";
import { loadDeterministicRuntime } from "../runtime/deterministicState.js";
import { uuidV7Source } from "../runtime/ids.js";
import { closeInheritedDescriptors } from "../runtime/inheritedDescriptors.js";
import type { Logger } from "../runtime/logger.js";
import { logStalls } from "../runtime/stallLog.js";
import { buildAppServer } from "../app.js";
import type { ModelTap } from "../agent/index.js";
import type { AppServer } from "../server/appServer.js";
import { DEFAULT_MAX_INBOUND_BYTES } from "../transport/inboundBudget.js";
import { DEFAULT_MAX_LINE_BYTES } from "../transport/lineReader.js";
import { UsageError } from "./usageError.js";

/** How long shutdown may take before the process exits anyway. */
const SHUTDOWN_DEADLINE_MS = 1_500;
// A WebSocket client may leave this much output unread before it is disconnected (config: websocket_max_buffered_bytes).
const WS_MAX_BUFFERED_BYTES = 16 * 1024 * 1024;
const WS_PING_INTERVAL_MS = 30_000;
// How long a client's queue may stay over that bound before it counts as not reading.
const WS_SLOW_CLIENT_GRACE_MS = 2_000;

/** Where to serve: stdio, a WebSocket port, WebSocket framing over a Unix socket (null path: the default one), or nowhere. */
export type Listen =
  | { readonly kind: "stdio" }
  | { readonly kind: "ws"; readonly host: string; readonly port: number }
  | { readonly kind: "unix"; readonly path: string | null }
  | { readonly kind: "off" };

/** WebSocket access control from the command line. */
export interface WebSocketAccess {
  readonly auth: "none" | "capability-token";
  readonly tokenFile: string | null;
  readonly tokenSha256: string | null;
  readonly allowedOrigins: readonly string[];
}

/** Options of {@link serve}. */
export interface ServeOptions {
  readonly listen: Listen;
  readonly ws: WebSocketAccess;
  readonly overrides: readonly ConfigOverride[];
  readonly maxLineBytes?: number;
  readonly includeJsonrpc: boolean;
  readonly deterministic: boolean;
  readonly script: string | null;
  readonly sessionLog: string | null;
  /** Refuse a config.toml key that neither Codex nor this server knows. */
  readonly strictConfig: boolean;
  readonly logger: Logger;
  /** What stdio speaks: the Codex app-server protocol (default), or ACP (`agent-app-server acp`). */
  readonly face?: "codex" | "acp";
  /** For `record`: wraps each turn's model client, and runs once serving ended, before the process exits. */
  readonly recording?: Recording | undefined;
}

/** What `record` adds to serving. */
export interface Recording {
  readonly modelTap: ModelTap;
  /** Writes what was recorded; not bound by the shutdown deadline (it replays the session once). */
  finish(server: AppServer): Promise<void>;
}

/**
 * Serves until told to stop (stdin EOF for stdio, SIGTERM or SIGINT for both), then drains
 * admitted requests, interrupts running turns, flushes output and exits 0 within the deadline.
 */
export async function serve(options: ServeOptions): Promise<void> {
  // Before anything is spawned: descriptors inherited from whatever started us must reach no command.
  const inherited = closeInheritedDescriptors();
  if (inherited.length > 0) options.logger.debug({ fds: inherited }, "closed inherited descriptors");
  const overSocket = options.listen.kind === "ws" || options.listen.kind === "unix";
  const tokenSha256 = overSocket ? await tokenHash(options.ws) : null;
  // The WebSocket code (and the ws package) loads only when a WebSocket listener is asked for.
  const webSocket = overSocket ? await loadWebSocket() : null;
  // Without auth only loopback addresses may be bound: the name is resolved once, here, and every
  // address it stands for must be loopback (a name is no proof: `127.example` can point anywhere).
  const bind = options.listen.kind === "ws" ? await webSocket!.resolveListenAddress(options.listen.host, tokenSha256 === null) : null;
  if (bind && !bind.ok) throw new UsageError(bind.message);
  const home = resolveHome();
  await ensureHome(home);
  const loaded = await loadConfig(home, options.overrides, { strict: options.strictConfig });
  // Said on stderr at once too: a typo in config.toml should not wait for a client to show it.
  for (const warning of loaded.warnings) options.logger.warn({ path: warning.path, details: warning.details }, warning.summary);
  // The scripted model (an HTTP mock) loads only when asked for.
  const wantsScript = options.script !== null || loaded.config.model_provider === "scripted" || loaded.config.scripted_model_script !== undefined;
  const scripted = wantsScript
    ? await (await import("../testing/scriptedProvider.js")).startScriptedProvider(loaded.config, { file: options.script })
    : null;
  const config = scripted?.config ?? loaded.config;
  // A replay's recorded MCP servers: answered from the file, none of them started.
  const recordedMcp = config.scripted_mcp_script ? await (await import("../testing/recordedMcp.js")).loadRecordedMcp(config.scripted_mcp_script) : undefined;
  const deterministic = options.deterministic || config.deterministic === true ? await loadDeterministicRuntime(home) : null;
  const clock = deterministic?.clock ?? systemClock;
  // One limit for both transports, so a client that works over stdio works over a socket.
  const maxMessageBytes = options.maxLineBytes ?? config.max_message_bytes ?? DEFAULT_MAX_LINE_BYTES;
  const server = buildAppServer({
    home,
    config,
    configStore: new ConfigStore({ config, layers: loaded.layers }, loaded.file, options.overrides, scripted?.withProvider),
    clock,
    ids: deterministic?.ids ?? uuidV7Source(clock),
    timingWarnings: deterministic === null,
    configWarnings: loaded.warnings,
    logger: options.logger,
    maxLineBytes: maxMessageBytes,
    includeJsonrpc: options.includeJsonrpc,
    sessionLogDir: options.sessionLog ?? undefined,
    // What a sandboxed command must not see besides the home: where clients connect, what they authenticate with, the audit log.
    serverPaths: [
      ...(options.listen.kind === "unix" && options.listen.path ? [options.listen.path] : []),
      ...(options.ws.tokenFile ? [options.ws.tokenFile] : []),
      ...(options.sessionLog ? [options.sessionLog] : []),
    ].map((entry) => path.resolve(entry)),
    modelTap: options.recording?.modelTap,
    steadyOutput: deterministic !== null,
    recordedMcp,
  });
  // Opt-in, for bench/stalls.mjs: the event-loop stalls this process sees, as a file of lines.
  const stallLog = process.env.AGENT_APP_SERVER_STALL_LOG;
  if (stallLog) logStalls(stallLog);
  await server.init();
  const closers: Array<() => Promise<unknown> | undefined> = [() => scripted?.mock.close(), () => deterministic?.save()];

  let exiting = false;
  const stop = (reason: string) => {
    if (exiting) return;
    exiting = true;
    options.logger.info({ reason }, "shutting down");
    const deadline = setTimeout(() => {
      options.logger.warn("shutdown deadline passed; exiting with work still in flight");
      process.exit(0);
    }, SHUTDOWN_DEADLINE_MS).unref();
    void (async () => {
      await server.shutdown();
      for (const close of closers) await close();
      if (!options.recording) return;
      clearTimeout(deadline);
      await options.recording.finish(server);
    })().then(
      () => process.exit(0),
      (error: unknown) => {
        options.logger.error({ err: error }, options.recording ? "recording failed" : "shutdown failed");
        process.exit(options.recording ? 1 : 0);
      },
    );
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));

  if (options.listen.kind === "stdio" && options.face === "acp") {
    const { serveAcp } = await import("../acp/acpFace.js");
    options.logger.info({ home, pid: process.pid }, "serving ACP on stdio");
    void serveAcp(server, process.stdin, process.stdout, options.logger).then(
      () => stop("stdin closed"),
      (error: unknown) => {
        options.logger.error({ err: error }, "the ACP connection failed");
        stop("ACP connection failed");
      },
    );
    return;
  }
  if (options.listen.kind === "stdio") {
    const connection = server.connect(process.stdin, process.stdout);
    options.logger.info({ home, pid: process.pid }, "serving on stdio");
    connection.onInputClosed(() => stop("stdin closed"));
    return;
  }
  if (options.listen.kind === "off") {
    options.logger.info({ home, pid: process.pid }, "not listening (--listen off); stop with SIGTERM");
    return;
  }
  const { listenWebSocket, webSocketStreams, prepareSocketPath, defaultSocketPath } = webSocket!;
  const socketPath = options.listen.kind === "unix" ? (options.listen.path ?? defaultSocketPath(home)) : null;
  if (socketPath !== null) {
    const ready = await prepareSocketPath(socketPath);
    if (!ready.ok) throw new UsageError(ready.message);
    // The socket file is ours: gone when we stop, so the next server finds no stale one.
    closers.push(() => unlink(socketPath).catch(() => undefined));
  }
  const listener = await listenWebSocket({
    bind: socketPath !== null ? { socketPath } : { host: bind!.address, port: (options.listen as { port: number }).port },
    auth: { tokenSha256, allowedOrigins: options.ws.allowedOrigins },
    maxMessageBytes,
    maxInboundBytes: config.websocket_max_inbound_bytes ?? DEFAULT_MAX_INBOUND_BYTES,
    pingIntervalMs: WS_PING_INTERVAL_MS,
    routes: server.audit ? { "/sessions": () => ({ sessions: server.audit!.list() }) } : {},
    onConnection: (socket, request) => {
      const { input, output } = webSocketStreams(socket, {
        maxBufferedBytes: config.websocket_max_buffered_bytes ?? WS_MAX_BUFFERED_BYTES,
        slowClientGraceMs: WS_SLOW_CLIENT_GRACE_MS,
        onSlowClient: () => options.logger.warn({ remote: request.socket.remoteAddress }, "disconnected a client that stopped reading"),
        onError: (error) => options.logger.warn({ remote: request.socket.remoteAddress, err: error }, "WebSocket error; closing that connection"),
      });
      server.connect(input, output);
    },
  });
  closers.unshift(() => listener.close());
  const bound = tokenSha256 === null && options.listen.kind === "ws" ? webSocket!.boundAddressProblem(options.listen.host, listener.address) : null;
  if (bound) {
    await listener.close();
    throw new UsageError(bound);
  }
  // Clients (and tests) learn the address from this line when the port was 0.
  options.logger.info({ home, pid: process.pid, url: listener.url }, `listening on ${listener.url}`);
}

async function loadWebSocket() {
  const [listener, streams, loopback, socketPath] = await Promise.all([
    import("../transport/webSocketListener.js"),
    import("../transport/webSocketStreams.js"),
    import("../transport/loopback.js"),
    import("../transport/unixSocketPath.js"),
  ]);
  return { ...listener, ...streams, ...loopback, ...socketPath };
}

/** The SHA-256 of the capability token the listener requires, or null when there is no auth. */
async function tokenHash(access: WebSocketAccess): Promise<string | null> {
  if (access.auth === "none") return null;
  if (access.tokenSha256) {
    if (!/^[0-9a-f]{64}$/i.test(access.tokenSha256)) throw new UsageError("--ws-token-sha256 needs 64 hex digits");
    return access.tokenSha256.toLowerCase();
  }
  if (!access.tokenFile) throw new UsageError("--ws-auth capability-token needs --ws-token-file PATH or --ws-token-sha256 HEX");
  const token = (await readFile(access.tokenFile, "utf8").catch((error: Error) => {
    throw new UsageError(`cannot read --ws-token-file ${access.tokenFile}: ${error.message}`);
  })).trim();
  if (!token) throw new UsageError(`--ws-token-file ${access.tokenFile} is empty`);
  return createHash("sha256").update(token).digest("hex");
}
