import { spawn } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import { createInterface } from "node:readline";

/** How the client exchanges JSON-RPC messages with a server: one object per message. */
export interface ClientTransport {
  send(message: object): void;
  /** Sets the handler of incoming messages (one). */
  onMessage(handler: (message: Record<string, unknown>) => void): void;
  /** Sets the handler called once when the connection ends, with a sentence saying why. */
  onClose(handler: (reason: string) => void): void;
  /** Sets the handler of incoming text that is not a JSON message (a server bug worth showing). */
  onProtocolError(handler: (text: string) => void): void;
  close(): Promise<void>;
  /** Stops taking messages from the server until {@link resume}: the server then holds its output (backpressure). */
  pause(): void;
  resume(): void;
  /** The spawned server's process id (spawned transports only). */
  readonly pid?: number | undefined;
}

/**
 * Where a spawned server's stderr (its log: pino JSON lines at `LOG_LEVEL`, default `info`) goes:
 * `"ignore"` (the default) drops it, `"inherit"` shares the embedder's stderr, a function gets each
 * line. Unless inherited, the last lines are kept and quoted in the error that reports an
 * unexpected exit.
 */
export type StderrTarget = "inherit" | "ignore" | ((line: string) => void);

/** Options of {@link streamTransport}. */
export interface StreamTransportOptions {
  /** Says why the connection ended once `input` has ended (default: "the server closed the connection"). */
  describeEnd?: () => Promise<string>;
}

/** Newline-delimited JSON over a pair of streams (a child's stdio, or in-memory streams). */
export function streamTransport(input: Readable, output: Writable, close: () => Promise<void>, options: StreamTransportOptions = {}): ClientTransport {
  let onMessage: (message: Record<string, unknown>) => void = () => undefined;
  let onClose: (reason: string) => void = () => undefined;
  let onProtocolError: (text: string) => void = () => undefined;
  const lines = createInterface({ input, crlfDelay: Infinity });
  lines.on("line", (line) => {
    if (!line.trim()) return;
    const message = parseMessage(line);
    if (message) onMessage(message);
    else onProtocolError(line);
  });
  lines.on("close", () => {
    const reason = options.describeEnd ? options.describeEnd() : Promise.resolve("the server closed the connection");
    void reason.then(
      (text) => onClose(text),
      () => onClose("the server closed the connection"),
    );
  });
  output.on("error", () => undefined);
  return {
    send: (message) => {
      if (!output.writableEnded && !output.destroyed) output.write(JSON.stringify(message) + "\n");
    },
    onMessage: (handler) => void (onMessage = handler),
    onClose: (handler) => void (onClose = handler),
    onProtocolError: (handler) => void (onProtocolError = handler),
    close,
    pause: () => lines.pause(),
    resume: () => lines.resume(),
  };
}

/** Options of {@link spawnTransport}. */
export interface SpawnTransportOptions {
  cwd?: string | undefined;
  env?: NodeJS.ProcessEnv | undefined;
  /** Where the server's stderr goes (default `"ignore"`); see {@link StderrTarget}. */
  stderr?: StderrTarget | undefined;
  /** Milliseconds `close()` waits for the exit after closing stdin, before SIGTERM (then SIGKILL after 2 s more). Default 3000. */
  closeTimeoutMs?: number | undefined;
}

/** How many of the server's last stderr lines an unexpected exit quotes. */
const STDERR_TAIL_LINES = 20;
const STDERR_TAIL_LINE_CHARS = 500;

/**
 * Spawns a server (default `agent-app-server app-server`) and talks to it over its stdio. When the
 * server ends the connection on its own, the reason names its exit code or signal and quotes the
 * last lines of its stderr (unless that is inherited).
 */
export function spawnTransport(command: readonly string[], options: SpawnTransportOptions = {}): ClientTransport {
  const [program, ...args] = command;
  if (!program) throw new TypeError("spawnTransport: the command is empty");
  const stderr = options.stderr ?? "ignore";
  const child = spawn(program, args, { cwd: options.cwd, env: options.env, stdio: ["pipe", "pipe", stderr === "inherit" ? "inherit" : "pipe"] });
  const tail: string[] = [];
  if (child.stderr) {
    const lines = createInterface({ input: child.stderr, crlfDelay: Infinity });
    lines.on("line", (line) => {
      tail.push(line.length > STDERR_TAIL_LINE_CHARS ? `${line.slice(0, STDERR_TAIL_LINE_CHARS)}…` : line);
      if (tail.length > STDERR_TAIL_LINES) tail.shift();
      if (typeof stderr === "function") {
        try {
          stderr(line);
        } catch (error) {
          process.emitWarning(`the stderr callback threw: ${(error as Error).message}`, "AppServerClientWarning");
        }
      }
    });
  }
  let spawnError: Error | null = null;
  let closing = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once("exit", (code, signal) => resolve({ code, signal }));
    child.once("error", (error) => {
      spawnError = error;
      resolve({ code: null, signal: null });
    });
  });
  const describeEnd = async (): Promise<string> => {
    if (closing) return "the client closed the connection";
    // stdout ends just before the exit is reported: give it a moment, so the reason can name the code.
    let timer: NodeJS.Timeout | undefined;
    const exit = await Promise.race([exited, new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), 2_000)))]);
    clearTimeout(timer);
    // Let the last stderr lines arrive (stderr may end after stdout).
    if (child.stderr && !child.stderr.readableEnded) {
      await Promise.race([new Promise((resolve) => child.stderr!.once("close", resolve)), new Promise((resolve) => setTimeout(resolve, 200).unref())]);
    }
    let reason: string;
    if (spawnError) reason = `could not start the server (${command.join(" ")}): ${spawnError.message}`;
    else if (!exit) reason = "the server closed its stdout";
    else if (exit.signal) reason = `the server was killed by ${exit.signal}`;
    else reason = `the server exited with code ${exit.code}`;
    return tail.length > 0 ? `${reason}; its last stderr lines:\n${tail.join("\n")}` : reason;
  };
  const stdin = child.stdin!;
  const transport = streamTransport(
    child.stdout!,
    stdin,
    async () => {
      closing = true;
      stdin.end();
      if (child.exitCode !== null || child.signalCode !== null || spawnError) return;
      const timers: NodeJS.Timeout[] = [];
      timers.push(setTimeout(() => child.kill("SIGTERM"), options.closeTimeoutMs ?? 3_000));
      timers.push(setTimeout(() => child.kill("SIGKILL"), (options.closeTimeoutMs ?? 3_000) + 2_000));
      await exited;
      for (const timer of timers) clearTimeout(timer);
    },
    { describeEnd },
  );
  return Object.assign(transport, { pid: child.pid });
}

/** Options of {@link webSocketTransport}. */
export interface WebSocketTransportOptions {
  /** HTTP headers of the upgrade request (`authorization`, …). */
  headers?: Record<string, string> | undefined;
}

/** A WebSocket connection (`ws://…`), one message per text frame. */
export async function webSocketTransport(url: string, options: WebSocketTransportOptions = {}): Promise<ClientTransport> {
  const { default: WebSocket } = await import("ws");
  const socket = new WebSocket(url, { headers: options.headers });
  await new Promise<void>((resolve, reject) => {
    socket.once("open", () => resolve());
    socket.once("error", reject);
    socket.once("unexpected-response", (_request, response) => reject(new Error(`WebSocket upgrade refused: HTTP ${response.statusCode}`)));
  });
  let onClose: (reason: string) => void = () => undefined;
  let onProtocolError: (text: string) => void = () => undefined;
  let closing = false;
  socket.on("close", (code) => onClose(closing ? "the client closed the connection" : `the WebSocket closed (${code})`));
  socket.on("error", () => undefined);
  return {
    send: (message) => {
      if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(message));
    },
    onMessage: (handler) => {
      socket.on("message", (data) => {
        const message = parseMessage(String(data));
        if (message) handler(message);
        else onProtocolError(String(data));
      });
    },
    onClose: (handler) => void (onClose = handler),
    onProtocolError: (handler) => void (onProtocolError = handler),
    pause: () => socket.pause(),
    resume: () => socket.resume(),
    close: async () => {
      closing = true;
      if (socket.readyState === socket.CLOSED) return;
      const closed = new Promise((resolve) => socket.once("close", resolve));
      socket.close();
      await closed;
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
