import WebSocket from "ws";
import { checkServerMessage, referenceAvailable } from "../conformance/referenceSchema.js";
import { ServerProcess, WAIT_MS } from "./serverProcess.js";

/** Starts the built server on a free WebSocket port (`args` appended) and resolves with its URL, read from its log. */
export async function startWebSocketServer(args: string[] = []): Promise<{ url: string; server: ServerProcess }> {
  const server = ServerProcess.start({ args: ["app-server", "--listen", "ws://127.0.0.1:0", ...args], protocol: false });
  await server.waitForStderr("listening on ws://");
  return { url: /listening on (ws:\/\/[0-9.]+:\d+)/.exec(server.stderr)![1]!, server };
}

/**
 * A WebSocket client that sends exactly what the test writes (answers to any id included) and keeps
 * every message it gets, each checked against the Codex reference schema.
 */
export class RawWebSocketClient {
  readonly messages: any[] = [];
  readonly violations: string[] = [];
  private readonly sentMethods = new Map<unknown, string>();
  private waiters: Array<{ match: (m: any) => boolean; resolve: (m: any) => void }> = [];
  private nextId = 1;

  private constructor(private readonly socket: WebSocket) {
    socket.on("message", (data) => this.receive(JSON.parse(String(data))));
  }

  /** Connects (with `token` as the bearer capability, when given) and sends `initialize` (and `initialized`). */
  static async connect(url: string, name: string, token?: string): Promise<RawWebSocketClient> {
    const socket = new WebSocket(url, token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } });
    await new Promise((resolve, reject) => {
      socket.once("open", resolve);
      socket.once("error", reject);
    });
    const client = new RawWebSocketClient(socket);
    const response = await client.request("initialize", { clientInfo: { name, version: "1" } });
    if (response.error) throw new Error(`initialize failed: ${JSON.stringify(response.error)}`);
    client.send({ method: "initialized" });
    return client;
  }

  /** Sends one message as it is. */
  send(message: object): void {
    this.socket.send(JSON.stringify(message));
  }

  /** Sends a request without waiting for its response (it arrives in {@link messages}). */
  post(id: string | number, method: string, params: unknown): void {
    this.sentMethods.set(id, method);
    this.send({ id, method, params });
  }

  /** Sends a request and resolves with its response. */
  request(method: string, params: unknown): Promise<any> {
    const id = `${method}#${this.nextId++}`;
    this.sentMethods.set(id, method);
    this.send({ id, method, params });
    return this.waitFor((m) => m.id === id && !("method" in m), `response to ${id}`);
  }

  /** Resolves with the first message (already received or future) that matches. */
  waitFor(match: (message: any) => boolean, what = "message", timeoutMs = WAIT_MS): Promise<any> {
    const found = this.messages.find(match);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)), timeoutMs);
      this.waiters.push({
        match,
        resolve: (m) => {
          clearTimeout(timer);
          resolve(m);
        },
      });
    });
  }

  /** Closes the socket. */
  close(): void {
    this.socket.terminate();
  }

  private receive(message: any): void {
    if (referenceAvailable) this.violations.push(...checkServerMessage(message, (id) => this.sentMethods.get(id)));
    this.messages.push(message);
    for (const waiter of this.waiters.filter((w) => w.match(message))) {
      this.waiters = this.waiters.filter((w) => w !== waiter);
      waiter.resolve(message);
    }
  }
}
