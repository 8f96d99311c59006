import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { checkServerMessage, referenceAvailable } from "../conformance/referenceSchema.js";

/** The built CLI that end-to-end tests spawn. */
export const CLI_PATH = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../dist/cli.cjs");

/** Default bound on every wait in the harness. */
export const WAIT_MS = 10_000;

/** Options for spawning the server. */
export interface StartOptions {
  /** Home directory; a fresh temp dir by default (removed on stop). */
  home?: string;
  args?: string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** False for commands that print text rather than speak the protocol (`--version`). */
  protocol?: boolean;
  /** A command the server runs under, with its arguments (`["strace", "-f", …]`). */
  wrapper?: string[];
  /** The script node runs (default dist/cli.cjs, the package bin; a symlink to it to run it under another name). */
  cli?: string;
  /** Descriptors the server inherits beyond 0–2, as whatever started it might leave them (fd 3, 4…). */
  extraFds?: number[];
}

/** How the process ended. */
export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Milliseconds from the call that awaited the exit to the exit itself. */
  elapsedMs: number;
}

const running = new Set<ServerProcess>();

/**
 * The built server as a child process over real pipes, with a JSONL client. Every stdout line must
 * be a protocol message and every message is checked against the Codex reference schema; the
 * problems are collected in {@link violations} and asserted after each test (test/support/setup.ts).
 */
export class ServerProcess {
  readonly messages: any[] = [];
  readonly violations: string[] = [];
  /** Every stdout line as text. */
  readonly stdoutLines: string[] = [];
  stderr = "";
  private nextId = 1000;
  private readonly sentMethods = new Map<unknown, string>();
  private readonly answerers = new Map<string, (params: any) => unknown>();
  private waiters: Array<{ match: (m: any) => boolean; resolve: (m: any) => void }> = [];
  private stderrWaiters: Array<() => void> = [];
  private buffer = "";
  private sentBuffer = "";
  private readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private ownsHome: boolean;

  private constructor(
    readonly child: ChildProcessWithoutNullStreams,
    readonly home: string,
    ownsHome: boolean,
    private readonly protocol: boolean,
  ) {
    this.ownsHome = ownsHome;
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => this.onStdout(chunk));
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      this.stderr += chunk;
      for (const notify of this.stderrWaiters.splice(0)) notify();
    });
    child.stdin.on("error", () => undefined);
    this.exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  }

  /** Spawns `node dist/cli.cjs app-server` with a fresh home (unless given). */
  static start(options: StartOptions = {}): ServerProcess {
    const ownsHome = options.home === undefined;
    const home = options.home ?? mkdtempSync(path.join(os.tmpdir(), "aas-home-"));
    const [command, ...args] = [...(options.wrapper ?? []), process.execPath, options.cli ?? CLI_PATH, ...(options.args ?? ["app-server"])];
    const child = spawn(command!, args, {
      cwd: options.cwd,
      // HOME is the temp home too: commands run with `bash -lc` must not source (or lock) the user's profile.
      env: { ...process.env, HOME: home, LOG_LEVEL: "info", ...options.env, AGENT_APP_SERVER_HOME: home },
      stdio: ["pipe", "pipe", "pipe", ...(options.extraFds ?? [])],
    }) as ChildProcessWithoutNullStreams;
    const server = new ServerProcess(child, home, ownsHome, options.protocol ?? true);
    running.add(server);
    return server;
  }

  /** Servers started by the current test and not yet stopped. */
  static running(): ServerProcess[] {
    return [...running];
  }

  /** Writes one message as a JSON line. */
  send(message: object): void {
    this.sendRaw(JSON.stringify(message) + "\n");
  }

  /** Writes raw text to stdin (for malformed input); complete requests in it are remembered by id. */
  sendRaw(text: string): void {
    this.sentBuffer += text;
    const lines = this.sentBuffer.split("\n");
    this.sentBuffer = lines.pop()!;
    for (const line of lines) this.rememberRequest(line);
    this.child.stdin.write(text);
  }

  private rememberRequest(line: string): void {
    try {
      const record = JSON.parse(line) as { id?: unknown; method?: unknown };
      if (record.id !== undefined && typeof record.method === "string") this.sentMethods.set(record.id, record.method);
    } catch {
      // Not JSON (a partial or malformed line): nothing to remember.
    }
  }

  /** Sends a request and resolves with its response message (result or error). */
  request(method: string, params?: unknown, id: string | number = this.nextId++): Promise<any> {
    const message: Record<string, unknown> = { id, method };
    if (params !== undefined) message.params = params;
    this.send(message);
    return this.waitFor((m) => m.id === id && !("method" in m), `response to ${method}#${id}`);
  }

  /** Answers every server request of `method` with what `answer` returns (an error response when it throws). */
  onRequest(method: string, answer: (params: any) => unknown): void {
    this.answerers.set(method, answer);
  }

  /** Sends `initialize` (and `initialized`) and resolves with the result. */
  async initialize(capabilities?: object): Promise<any> {
    const response = await this.request("initialize", {
      clientInfo: { name: "aas-test", title: "test", version: "0.0.1" },
      ...(capabilities ? { capabilities } : {}),
    });
    if (response.error) throw new Error(`initialize failed: ${JSON.stringify(response.error)}`);
    this.send({ method: "initialized" });
    return response.result;
  }

  /** Resolves with the first message (already received or future) that matches. */
  waitFor(match: (message: any) => boolean, what = "message", timeoutMs = WAIT_MS): Promise<any> {
    const found = this.messages.find(match);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}; stderr:\n${this.stderr.slice(-2000)}`));
      }, timeoutMs);
      const waiter = {
        match,
        resolve: (m: any) => {
          clearTimeout(timer);
          resolve(m);
        },
      };
      this.waiters.push(waiter);
    });
  }

  /** Resolves once stderr contains `text`. */
  async waitForStderr(text: string, timeoutMs = WAIT_MS): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    while (!this.stderr.includes(text)) {
      const remaining = deadline - performance.now();
      if (remaining <= 0) throw new Error(`timed out waiting for stderr to contain ${JSON.stringify(text)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, remaining);
        this.stderrWaiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Closes stdin (EOF) and waits for the exit. */
  async closeStdin(timeoutMs = WAIT_MS): Promise<ExitInfo> {
    const started = performance.now();
    this.rememberRequest(this.sentBuffer);
    this.child.stdin.end();
    return this.waitExit(started, timeoutMs);
  }

  /** Sends a signal and waits for the exit. */
  async signal(signal: NodeJS.Signals, timeoutMs = WAIT_MS): Promise<ExitInfo> {
    const started = performance.now();
    this.child.kill(signal);
    return this.waitExit(started, timeoutMs);
  }

  /** Resolves when the process has exited (however it ends). */
  async waitExit(started = performance.now(), timeoutMs = WAIT_MS): Promise<ExitInfo> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`server did not exit within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      const { code, signal } = await Promise.race([this.exited, timeout]);
      return { code, signal, elapsedMs: performance.now() - started };
    } finally {
      clearTimeout(timer);
    }
  }

  /** Ends the process if still running and removes the temp home. */
  async stop(): Promise<void> {
    running.delete(this);
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.stdin.end();
      await this.waitExit().catch(() => {
        this.child.kill("SIGKILL");
        return this.exited;
      });
    }
    if (this.ownsHome) rmSync(this.home, { recursive: true, force: true });
  }

  private onStdout(chunk: string): void {
    this.buffer += chunk;
    let newline: number;
    while ((newline = this.buffer.indexOf("\n")) !== -1) {
      const line = this.buffer.slice(0, newline);
      this.buffer = this.buffer.slice(newline + 1);
      this.onLine(line);
    }
  }

  private onLine(line: string): void {
    this.stdoutLines.push(line);
    if (!this.protocol) return;
    let message: any;
    try {
      message = JSON.parse(line);
    } catch {
      this.violations.push(`stdout line is not JSON: ${line.slice(0, 200)}`);
      return;
    }
    if (referenceAvailable) {
      for (const problem of checkServerMessage(message, (id) => this.sentMethods.get(id))) {
        this.violations.push(`${summarize(message)}: ${problem}`);
      }
    }
    this.messages.push(message);
    const answer = message.id !== undefined && message.method ? this.answerers.get(message.method) : undefined;
    if (answer) {
      try {
        this.send({ id: message.id, result: answer(message.params) });
      } catch (error) {
        this.send({ id: message.id, error: { code: -32000, message: (error as Error).message } });
      }
    }
    for (const waiter of this.waiters.filter((w) => w.match(message))) {
      this.waiters = this.waiters.filter((w) => w !== waiter);
      waiter.resolve(message);
    }
  }
}

function summarize(message: any): string {
  if (message?.method) return `${message.id !== undefined ? "request" : "notification"} ${message.method}`;
  return `response #${JSON.stringify(message?.id)}`;
}
