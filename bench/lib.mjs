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

/** Spawns `command` (argv) and talks JSONL over its stdio; notifications go to `onNotification`. */
export function startServer(command, env) {
  const child = spawn(command[0], command.slice(1), { env, stdio: ["pipe", "pipe", "ignore"] });
  const pending = new Map();
  const listeners = new Set();
  let buffer = "";
  let nextId = 1;
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk) => {
    buffer += chunk;
    let newline;
    while ((newline = buffer.indexOf("\n")) !== -1) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      if (!line.trim()) continue;
      const message = JSON.parse(line);
      if (message.method && message.id !== undefined) {
        child.stdin.write(JSON.stringify({ id: message.id, result: { decision: "accept" } }) + "\n");
      } else if (message.method) {
        for (const listener of listeners) listener(message);
      } else if (pending.has(message.id)) {
        pending.get(message.id)(message);
        pending.delete(message.id);
      }
    }
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
