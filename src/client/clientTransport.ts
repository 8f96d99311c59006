import { spawn } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import { createInterface } from "node:readline";

/** How the client exchanges JSON-RPC messages with a server: one object per message. */
export interface ClientTransport {
  send(message: object): void;
  /** Sets the handler of incoming messages (one). */
  onMessage(handler: (message: Record<string, unknown>) => void): void;
  /** Sets the handler called once when the connection ends. */
  onClose(handler: (reason: string) => void): void;
  /** Sets the handler of incoming text that is not a JSON message (a server bug worth showing). */
  onProtocolError(handler: (text: string) => void): void;
  close(): Promise<void>;
}

/** Newline-delimited JSON over a pair of streams (a child's stdio, or in-memory streams). */
export function streamTransport(input: Readable, output: Writable, close: () => Promise<void>): ClientTransport {
  let onMessage: (message: Record<string, unknown>) => void = () => undefined;
  let onClose: (reason: string) => void = () => undefined;
  let onProtocolError: (text: string) => void = () => undefined;
  const lines = createInterface({ input });
  lines.on("line", (line) => {
    if (!line.trim()) return;
    const message = parseMessage(line);
    if (message) onMessage(message);
    else onProtocolError(line);
  });
  lines.on("close", () => onClose("the server closed the connection"));
  output.on("error", () => undefined);
  return {
    send: (message) => void output.write(JSON.stringify(message) + "\n"),
    onMessage: (handler) => void (onMessage = handler),
    onClose: (handler) => void (onClose = handler),
    onProtocolError: (handler) => void (onProtocolError = handler),
    close,
  };
}

/** Spawns a server (default `agent-app-server app-server`) and talks to it over its stdio. */
export function spawnTransport(command: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv }): ClientTransport {
  const [program, ...args] = command;
  const child = spawn(program!, args, { cwd: options.cwd, env: options.env, stdio: ["pipe", "pipe", "inherit"] });
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  return streamTransport(child.stdout, child.stdin, async () => {
    child.stdin.end();
    const timer = setTimeout(() => child.kill("SIGKILL"), 3_000);
    await exited;
    clearTimeout(timer);
  });
}

/** A WebSocket connection (`ws://…`), one message per text frame. */
export async function webSocketTransport(url: string, options: { headers?: Record<string, string> } = {}): Promise<ClientTransport> {
  const { default: WebSocket } = await import("ws");
  const socket = new WebSocket(url, { headers: options.headers });
  await new Promise<void>((resolve, reject) => {
    socket.once("open", () => resolve());
    socket.once("error", reject);
    socket.once("unexpected-response", (_request, response) => reject(new Error(`WebSocket upgrade refused: HTTP ${response.statusCode}`)));
  });
  let onClose: (reason: string) => void = () => undefined;
  let onProtocolError: (text: string) => void = () => undefined;
  socket.on("close", (code) => onClose(`the WebSocket closed (${code})`));
  socket.on("error", () => undefined);
  return {
    send: (message) => socket.send(JSON.stringify(message)),
    onMessage: (handler) => {
      socket.on("message", (data) => {
        const message = parseMessage(String(data));
        if (message) handler(message);
        else onProtocolError(String(data));
      });
    },
    onClose: (handler) => void (onClose = handler),
    onProtocolError: (handler) => void (onProtocolError = handler),
    close: async () => {
      if (socket.readyState === socket.CLOSED) return;
      socket.close();
      await new Promise((resolve) => socket.once("close", resolve));
    },
  };
}

/** A JSON object, or null for anything else (broken JSON, a log line on the wrong stream). */
function parseMessage(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
