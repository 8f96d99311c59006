import { createHash, timingSafeEqual } from "node:crypto";
import { chmod } from "node:fs/promises";
import http from "node:http";
import net, { type AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { WebSocketServer, type WebSocket } from "ws";
import { describeErrno, StartupError } from "../runtime/systemErrors.js";
import { InboundBudget } from "./inboundBudget.js";
import { guardedServer } from "../runtime/sandboxPeers.js";

/** Who may connect. */
export interface WebSocketAuth {
  /** SHA-256 (hex) of the capability token clients send as `Authorization: Bearer <token>`; null: no auth. */
  readonly tokenSha256: string | null;
  /** Origins allowed to connect; requests with any other `Origin` header are refused (403). */
  readonly allowedOrigins: readonly string[];
}

/** Options of {@link listenWebSocket}. */
export interface WebSocketListenerOptions {
  /**
   * Where to listen: an address and port (resolved and checked by the caller; a name would be
   * resolved again here), or a Unix socket path (made ready by {@link prepareSocketPath}).
   */
  readonly bind: { readonly host: string; readonly port: number } | { readonly socketPath: string };
  readonly auth: WebSocketAuth;
  /** Largest accepted message (bytes); a bigger one closes that connection only (1009). */
  readonly maxMessageBytes: number;
  /** Bytes read from all clients together and not yet whole messages before reading pauses (see {@link InboundBudget}). */
  readonly maxInboundBytes: number;
  /** How often to ping; a client that missed the last pong is dropped. */
  readonly pingIntervalMs: number;
  /** Extra `GET` routes served on the same port (path → JSON body). */
  readonly routes?: Readonly<Record<string, () => unknown>>;
  readonly onConnection: (socket: WebSocket, request: http.IncomingMessage) => void;
}

/** A running listener. */
export interface WebSocketListener {
  /** `ws://` and the address and port actually bound, or `unix://` and the socket's path. */
  readonly url: string;
  /** The address actually bound, as the socket reports it (the path of a Unix socket). */
  readonly address: string;
  close(): Promise<void>;
}

/**
 * The WebSocket listener of `--listen ws://IP:PORT`, as Codex's: one JSON-RPC message per text
 * frame, `GET /readyz` and `/healthz` on the same port, capability-token auth checked (in constant
 * time) before the upgrade, `Origin` refused unless allowed, a message size limit, a bound on the
 * bytes of messages being received across clients, ping/pong. A TCP connection from a sandboxed
 * command (one granted network shares our loopback) is closed before anything is read from it.
 */
export async function listenWebSocket(options: WebSocketListenerOptions): Promise<WebSocketListener> {
  // ws refuses a frame by the length in its header, before buffering it.
  const wss = new WebSocketServer({ noServer: true, maxPayload: options.maxMessageBytes });
  const inbound = new InboundBudget(options.maxInboundBytes);
  const routes: Record<string, () => unknown> = { "/readyz": () => ({ status: "ok" }), "/healthz": () => ({ status: "ok" }), ...options.routes };
  const server = http.createServer((request, response) => {
    const path = (request.url ?? "/").split("?")[0]!;
    const route = request.method === "GET" ? routes[path] : undefined;
    if (request.headers.origin !== undefined && !options.auth.allowedOrigins.includes(request.headers.origin)) {
      response.writeHead(403).end();
      return;
    }
    if (!route) {
      response.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: "not found" }));
      return;
    }
    if (path !== "/readyz" && path !== "/healthz" && !authorized(request, options.auth)) {
      response.writeHead(401).end();
      return;
    }
    response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(route()));
  });
  server.on("upgrade", (request: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    const refuse = (status: number, text: string) => {
      socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    };
    if (request.headers.origin !== undefined && !options.auth.allowedOrigins.includes(request.headers.origin)) return refuse(403, "Forbidden");
    if (!authorized(request, options.auth)) return refuse(401, "Unauthorized");
    wss.handleUpgrade(request, socket, head, (ws) => {
      let alive = true;
      ws.on("pong", () => (alive = true));
      const ping = setInterval(() => {
        // Paused by the inbound budget, its pong is unread rather than missing.
        if (ws.isPaused) return void (alive = true);
        if (!alive) return ws.terminate();
        alive = false;
        ws.ping();
      }, options.pingIntervalMs);
      ping.unref();
      ws.on("close", () => clearInterval(ping));
      options.onConnection(ws, request);
      inbound.meter(socket, ws);
    });
  });
  if ("socketPath" in options.bind) {
    await listenOnSocket(server, options.bind.socketPath);
    const close = async () => {
      for (const client of wss.clients) client.terminate();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    };
    return { url: `unix://${options.bind.socketPath}`, address: options.bind.socketPath, close };
  }
  // The HTTP server gets only the connections the guard lets through; it never listens itself.
  const front = guardedServer((socket) => server.emit("connection", socket));
  front.listen(options.bind.port, options.bind.host);
  await listening(front, `ws://${options.bind.host.includes(":") ? `[${options.bind.host}]` : options.bind.host}:${options.bind.port}`);
  const { address, port } = front.address() as AddressInfo;
  const close = async () => {
    for (const client of wss.clients) client.terminate();
    server.closeAllConnections();
    await new Promise<void>((resolve) => front.close(() => resolve()));
  };
  return { url: `ws://${address.includes(":") ? `[${address}]` : address}:${port}`, address, close };
}

/** Resolves once `server` listens; a bind that fails is a {@link StartupError} naming the address and what to do. */
function listening(server: net.Server, url: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", (error: NodeJS.ErrnoException) => {
      const advice = error.code === "EADDRINUSE" ? "stop what listens there, or choose another address (port 0 picks a free one)" : "choose another address";
      reject(new StartupError(`cannot listen on ${url}: ${describeErrno(error)} (${error.code ?? "error"}); ${advice}`));
    });
  });
}

/**
 * Binds a Unix socket that only its owner can use (0600): created under a umask that leaves no
 * moment in which others could connect, then chmod'ed in case the file system ignores the umask.
 */
async function listenOnSocket(server: http.Server, socketPath: string): Promise<void> {
  const previous = process.umask(0o177);
  try {
    server.listen(socketPath);
    await listening(server, `unix://${socketPath}`);
  } finally {
    process.umask(previous);
  }
  await chmod(socketPath, 0o600);
}

function authorized(request: http.IncomingMessage, auth: WebSocketAuth): boolean {
  if (auth.tokenSha256 === null) return true;
  const header = request.headers.authorization ?? "";
  const match = /^Bearer\s+(.+)$/i.exec(header);
  if (!match) return false;
  const given = createHash("sha256").update(match[1]!.trim()).digest();
  const expected = Buffer.from(auth.tokenSha256, "hex");
  return expected.length === given.length && timingSafeEqual(given, expected);
}
