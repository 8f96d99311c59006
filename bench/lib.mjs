// What the benchmarks share: a minimal JSONL client of a spawned server (any server that speaks
// the protocol), the flags that point a server at the mock model, homes, medians, and process
// memory figures.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const CLI = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../dist/cli.cjs");

/** The `-c` flags (Codex config keys, which we share) that point an app-server at the mock model. */
export const mockProviderFlags = (mockUrl) =>
  [
    `model_provider="mock"`,
    `model_providers.mock={name="mock",base_url="${mockUrl}",wire_api="responses",request_max_retries=0,stream_max_retries=0}`,
    `model="gpt-5.5"`,
    `approval_policy="never"`,
    `sandbox_mode="danger-full-access"`,
  ].flatMap((flag) => ["-c", flag]);

/**
 * A fresh server home under $BENCH_HOME_BASE (default ~/.cache/agent-app-server-bench): not under
 * the system temp dir, where codex cannot install its helper binaries and runs degraded.
 */
export function benchHome(prefix = "home-") {
  const base = process.env.BENCH_HOME_BASE ?? path.join(os.homedir(), ".cache", "agent-app-server-bench");
  mkdirSync(base, { recursive: true });
  return mkdtempSync(path.join(base, prefix));
}

/** Lines longer than this are parsed when read, not when received: the client stays quick while it measures the server. */
const HUGE_LINE = 1 << 20;

/**
 * A message from one line. A huge answer is routed by its id (the server writes it first) and its
 * result parsed only when one of its fields is read (its `chars` is the line's length), so
 * measuring the server does not wait on the client.
 */
function parseLine(line) {
  const head = line.length > HUGE_LINE && /^\{"id":(\d+),"result":/.exec(line.slice(0, 64));
  if (!head) return JSON.parse(line);
  let parsed;
  const result = new Proxy(
    {},
    {
      get: (_, key) => {
        if (key === "chars") return line.length;
        if (key === "then") return undefined; // not a promise: resolving with it must not parse it
        return (parsed ??= JSON.parse(line).result)[key];
      },
    },
  );
  return { id: Number(head[1]), result };
}

/** Spawns `command` (argv) in `cwd` and talks JSONL over its stdio; notifications go to `onNotification`. */
export function startServer(command, env, { cwd } = {}) {
  const child = spawn(command[0], command.slice(1), { env, cwd, stdio: ["pipe", "pipe", "ignore"] });
  const pending = new Map();
  const listeners = new Set();
  // The unfinished line's pieces: a chunk is searched for a newline once, however long the line.
  let pieces = [];
  let nextId = 1;
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk) => {
    let start = 0;
    let newline;
    while ((newline = chunk.indexOf("\n", start)) !== -1) {
      pieces.push(chunk.slice(start, newline));
      start = newline + 1;
      const line = pieces.join("");
      pieces = [];
      if (!line.trim()) continue;
      const message = parseLine(line);
      if (message.method && message.id !== undefined) {
        child.stdin.write(JSON.stringify({ id: message.id, result: { decision: "accept" } }) + "\n");
      } else if (message.method) {
        for (const listener of listeners) listener(message);
      } else if (pending.has(message.id)) {
        pending.get(message.id)(message);
        pending.delete(message.id);
      }
    }
    if (start < chunk.length) pieces.push(chunk.slice(start));
  });
  const request = (method, params) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      const timer = setTimeout(() => reject(new Error(`${method} timed out`)), 600_000);
      pending.set(id, (m) => {
        clearTimeout(timer);
        m.error ? reject(new Error(JSON.stringify(m.error))) : resolve(m.result);
      });
      child.stdin.write(JSON.stringify({ id, method, params }) + "\n");
    });
  /** Resolves with the first notification that matches, from now on. */
  const next = (match) =>
    new Promise((resolve) => {
      const listener = (message) => {
        if (!match(message)) return;
        listeners.delete(listener);
        resolve(message);
      };
      listeners.add(listener);
    });
  /** Starts a turn and resolves with its `turn/completed` notification; throws unless it completed. */
  const turn = async (threadId, text) => {
    const done = next((m) => m.method === "turn/completed" && m.params.threadId === threadId);
    await request("turn/start", { threadId, input: [{ type: "text", text }] });
    const completed = await done;
    if (completed.params.turn.status !== "completed") throw new Error(`turn ${completed.params.turn.status}: ${JSON.stringify(completed.params.turn.error)}`);
    return completed;
  };
  const on = (listener) => {
    listeners.add(listener);
    return () => listeners.delete(listener);
  };
  const stop = () =>
    new Promise((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.on("exit", resolve);
      child.stdin.end();
      setTimeout(() => child.kill("SIGKILL"), 5_000).unref();
    });
  const initialize = async () => {
    const result = await request("initialize", { clientInfo: { name: "bench", title: "bench", version: "1.0.0" } });
    child.stdin.write(JSON.stringify({ method: "initialized" }) + "\n");
    return result;
  };
  return { child, request, next, on, turn, stop, initialize };
}

/** A field of /proc/<pid>/status in KiB (VmRSS, VmHWM), or null off Linux. */
export function procStatusKb(pid, field) {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

export const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
