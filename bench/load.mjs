#!/usr/bin/env node
// Peak memory of the built server under the two loads of issue 20: clients each sending one large
// WebSocket message at once, and concurrent fs/readFile of a large file. Each load runs at the
// default limits and with the byte budgets lifted (as before they existed), and prints the server's
// peak RSS (VmHWM) and what was served. Figures only: test/fault/load.test.ts checks the behaviour.
// Usage: npm run build && node bench/load.mjs [--clients 8] [--message-mb 60] [--reads 4] [--file-mib 60]
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import WebSocket from "ws";
import { CLI, procStatusKb, startServer } from "./lib.mjs";

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i === -1 ? fallback : Number(args[i + 1]);
};
const CLIENTS = option("--clients", 8);
const MESSAGE_BYTES = option("--message-mb", 60) * 1_000_000;
const READS = option("--reads", 4);
const FILE_BYTES = option("--file-mib", 60) * 1024 * 1024;
// Large enough that nothing waits or is refused: the server as it was before the budgets.
const LIFTED = 64 * 1024 * 1024 * 1024;

const peakMib = (pid) => `${((procStatusKb(pid, "VmHWM") ?? 0) / 1024).toFixed(0)} MiB`;

/** Starts a WebSocket server with `flags` and resolves with it and its URL. */
async function webSocketServer(home, flags) {
  const child = spawn(process.execPath, [CLI, "app-server", "--listen", "ws://127.0.0.1:0", ...flags], {
    env: { ...process.env, AGENT_APP_SERVER_HOME: home, LOG_LEVEL: "info" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let log = "";
  const url = await new Promise((resolve, reject) => {
    child.stderr.on("data", (chunk) => {
      log += chunk;
      const match = /listening on (ws:\/\/[0-9.]+:\d+)/.exec(log);
      if (match) resolve(match[1]);
    });
    child.on("exit", (code) => reject(new Error(`server exited (${code}): ${log}`)));
  });
  return { child, url };
}

/** Sends one `initialize` of MESSAGE_BYTES from each of CLIENTS sockets at once; resolves with how many were answered. */
async function largeMessages(flags) {
  const home = mkdtempSync(path.join(os.tmpdir(), "aas-bench-load-"));
  const { child, url } = await webSocketServer(home, flags);
  try {
    const message = JSON.stringify({ id: 1, method: "initialize", params: { clientInfo: { name: "bench", title: "x".repeat(MESSAGE_BYTES), version: "1" } } });
    const answers = await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        const socket = new WebSocket(url);
        await new Promise((resolve, reject) => socket.once("open", resolve).once("error", reject));
        const answered = new Promise((resolve) => {
          socket.on("message", (data) => resolve(JSON.parse(String(data))));
          socket.on("close", () => resolve(null));
        });
        socket.send(message);
        const answer = await answered;
        socket.terminate();
        return answer?.result ? 1 : 0;
      }),
    );
    return `${answers.reduce((a, b) => a + b, 0)}/${CLIENTS} answered, peak ${peakMib(child.pid)}`;
  } finally {
    child.kill("SIGTERM");
    rmSync(home, { recursive: true, force: true });
  }
}

/** Reads a FILE_BYTES file READS times at once over stdio; resolves with how many were served. */
async function concurrentReads(flags) {
  const dir = mkdtempSync(path.join(os.tmpdir(), "aas-bench-reads-"));
  const file = path.join(dir, "big.bin");
  writeFileSync(file, Buffer.alloc(FILE_BYTES, 1));
  // The server's cwd is the root its fs/* may read.
  const cwd = process.cwd();
  process.chdir(dir);
  const server = startServer([process.execPath, CLI, "app-server", ...flags], { ...process.env, AGENT_APP_SERVER_HOME: dir, LOG_LEVEL: "error" });
  process.chdir(cwd);
  try {
    await server.initialize();
    const outcomes = await Promise.all(Array.from({ length: READS }, () => server.request("fs/readFile", { path: file }).then(() => 1, () => 0)));
    return `${outcomes.reduce((a, b) => a + b, 0)}/${READS} served (the rest -32001), peak ${peakMib(server.child.pid)}`;
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const megabytes = (bytes) => `${(bytes / 1_000_000).toFixed(0)} MB`;
console.log(`${CLIENTS} WebSocket messages of ${megabytes(MESSAGE_BYTES)} at once`);
console.log(`  default limits:  ${await largeMessages([])}`);
console.log(`  budget lifted:   ${await largeMessages(["-c", `websocket_max_inbound_bytes=${LIFTED}`])}`);
console.log(`${READS} fs/readFile of ${FILE_BYTES / 1024 / 1024} MiB at once`);
console.log(`  default limits:  ${await concurrentReads([])}`);
console.log(`  budget lifted:   ${await concurrentReads(["-c", `fs_max_concurrent_read_bytes=${LIFTED}`])}`);
