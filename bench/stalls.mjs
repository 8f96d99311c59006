#!/usr/bin/env node
// `npm run bench:stalls`: the longest the built server holds its event loop while it does one big
// piece of work. Each scenario spawns the server on a fresh home, seen two ways while the work runs:
// - the server's own view: with AGENT_APP_SERVER_STALL_LOG it logs every event-loop stall over
//   20 ms (a 5 ms timer that fired late) and the process's CPU time meanwhile; "loop max" is the
//   longest within the work, counted as the lesser of the two (on a busy machine a process also
//   waits for a core, which is not a stall of its own);
// - a client's: `thread/loaded/list` every PROBE_GAP_MS, each sent after the previous answer; a
//   probe's latency is how long a request waited, including behind a large answer in the pipe
//   (80 MB take the client a few hundred ms to read), so it can exceed the loop's stalls.
// Usage: npm run build && node bench/stalls.mjs [--check] [--only patch,read,resume,list,output,fuzzy]
//   --check: exit 1 when the loop stalled over 50 ms (the limit of issue 32) in any scenario.
// STALLS_NODE_ARGS="--cpu-prof --cpu-prof-dir=DIR" passes Node flags to the servers (to profile them).
import { randomUUID } from "node:crypto";
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { startMockModel } from "../dist/testing/index.js";
import { benchHome, CLI, median, mockProviderFlags, startServer } from "./lib.mjs";

const argv = process.argv.slice(2);
const option = (name, fallback) => {
  const i = argv.indexOf(name);
  return i === -1 ? fallback : argv[i + 1];
};
const CHECK = argv.includes("--check");
const ONLY = new Set(option("--only", "patch,read,resume,list,output,fuzzy").split(","));
const LIMIT_MS = 50;
const PROBE_GAP_MS = 15;

const PATCH_LINES = 10_000;
const PATCH_HUNKS = 500;
const READ_MB = 60;
const RESUME_ITEMS = 50_000;
const LIST_THREADS = 10_000;
const OUTPUT_MB = 50;
const FUZZY_FILES = 100_000;

/** Sends a cheap request after each answer until stopped; the latencies say how long the loop was held. */
function probe(server) {
  const latencies = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const t = performance.now();
      await server.request("thread/loaded/list", {});
      latencies.push(performance.now() - t);
      await sleep(PROBE_GAP_MS);
    }
  })();
  return async () => {
    stopped = true;
    await loop;
    return { n: latencies.length, median: median(latencies), max: Math.max(...latencies) };
  };
}

/** The file each server logs its event-loop stalls to (AGENT_APP_SERVER_STALL_LOG). */
const stallLog = (home) => path.join(home, "stalls.jsonl");

/** The longest stall the server logged that overlaps [from, to] (Unix ms), 0 if none; its CPU time when less. */
function loopMax(home, from, to) {
  if (!existsSync(stallLog(home))) return 0;
  const stalls = readFileSync(stallLog(home), "utf8").trim().split("\n").map((line) => JSON.parse(line));
  return Math.max(0, ...stalls.filter((stall) => stall.endedAt >= from && stall.endedAt - stall.ms <= to).map((stall) => Math.min(stall.ms, stall.cpuMs)));
}

/** The built server on `home` in `cwd` (its allowed root for `fs/*`), talking to `mock`. */
function spawnServer(mock, home, cwd) {
  const env = { ...process.env, AGENT_APP_SERVER_HOME: home, CODEX_HOME: home, HOME: home, LOG_LEVEL: "error", AGENT_APP_SERVER_STALL_LOG: stallLog(home) };
  const nodeArgs = process.env.STALLS_NODE_ARGS?.split(" ").filter(Boolean) ?? [];
  return startServer([process.execPath, ...nodeArgs, CLI, "app-server", ...mockProviderFlags(mock.url)], env, { cwd });
}

/** Runs `work` (resolving with its own figures) on a started server on `home` while probing it. */
async function measure(server, home, work) {
  const stop = probe(server);
  const from = Date.now();
  const t = performance.now();
  const extra = await work();
  const workMs = performance.now() - t;
  const figures = { workMs, probe: await stop(), ...extra };
  // The last stall is logged by the first tick after it: wait for that tick.
  await sleep(20);
  return { ...figures, loopMax: loopMax(home, from, Date.now()) };
}

// --- patch: 500 hunks on a 10,000-line file, applied by the apply_patch tool in a turn.

const numberedLines = (count) => Array.from({ length: count }, (_, i) => `line ${i + 1}`).join("\n") + "\n";

function bigPatch() {
  const gap = Math.floor((PATCH_LINES - 10) / PATCH_HUNKS);
  let patch = "*** Begin Patch\n*** Update File: big.txt\n";
  for (let h = 0; h < PATCH_HUNKS; h++) {
    const n = 5 + h * gap;
    patch += `@@\n line ${n - 1}\n-line ${n}\n+line ${n} changed by hunk ${h}\n line ${n + 1}\n`;
  }
  return patch + "*** End Patch\n";
}

async function patchScenario(mock, home, workspace) {
  writeFileSync(path.join(workspace, "big.txt"), numberedLines(PATCH_LINES));
  const server = spawnServer(mock, home, workspace);
  await server.initialize();
  const threadId = (await server.request("thread/start", { cwd: workspace })).thread.id;
  mock.push({ items: [{ type: "apply_patch", patch: bigPatch() }] }, { items: [{ type: "message", text: "patched" }] });
  const figures = await measure(server, home, async () => {
    await server.turn(threadId, "patch big.txt");
  });
  const changed = readFileSync(path.join(workspace, "big.txt"), "utf8").split("\n").filter((line) => line.includes(" changed by hunk ")).length;
  if (changed !== PATCH_HUNKS) throw new Error(`patch: ${changed} of ${PATCH_HUNKS} hunks applied`);
  return { server, figures };
}

// --- read: fs/readFile of a 60 MB file.

async function readScenario(mock, home, workspace) {
  const file = path.join(workspace, "big.bin");
  writeFileSync(file, Buffer.alloc(READ_MB * 1_000_000, "0123456789abcdef"));
  const server = spawnServer(mock, home, workspace);
  await server.initialize();
  await server.request("thread/loaded/list", {});
  const figures = await measure(server, home, async () => {
    const answer = await server.request("fs/readFile", { path: file });
    return { note: `${(answer.chars / 1e6).toFixed(0)} MB answer` };
  });
  return { server, figures };
}

// --- resume: thread/resume of a thread of 50,000 items, its file grown from two real turns.

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const CALL_ID = /\b(call_resp_\d+_\d+|msg_resp_\d+_\d+)\b/g;
const USER_TEXT = "Please look at the numbers printed by the command and tell me what you see in them; keep it short.";
const AGENT_TEXT = "The command printed the integers from 1 to 80, one per line, in increasing order. Nothing is missing and nothing is repeated. ".repeat(2);

/** The one thread file under `home`. */
function threadFile(home) {
  const files = readdirSync(path.join(home, "sessions"), { recursive: true }).filter((name) => name.endsWith(".jsonl"));
  if (files.length !== 1) throw new Error(`expected one thread file, found ${files.length}`);
  return path.join(home, "sessions", files[0]);
}

/** Makes a thread of two turns (a message; a command and a message), then appends copies of the second until it has `items`. */
async function longThread(mock, home, workspace, items) {
  const server = spawnServer(mock, home, workspace);
  await server.initialize();
  const threadId = (await server.request("thread/start", { cwd: workspace })).thread.id;
  mock.push({ items: [{ type: "message", text: AGENT_TEXT }] });
  await server.turn(threadId, USER_TEXT);
  mock.push({ items: [{ type: "exec", cmd: "seq 1 80" }] }, { items: [{ type: "message", text: AGENT_TEXT }] });
  await server.turn(threadId, USER_TEXT);
  await server.stop();
  const file = threadFile(home);
  const lines = readFileSync(file, "utf8").split("\n").filter(Boolean);
  const lastTurn = lines.slice(lines.findLastIndex((line) => line.startsWith('{"type":"turnStarted"')));
  const copies = Math.ceil((items - 5) / 3);
  let chunk = [];
  for (let copy = 1; copy <= copies; copy++) {
    const fresh = new Map();
    for (const line of lastTurn) {
      chunk.push(line.replace(UUID, (id) => (id === threadId ? id : fresh.get(id) ?? fresh.set(id, randomUUID()).get(id))).replace(CALL_ID, (id) => `${id}_c${copy}`));
    }
    if (chunk.length > 10_000 || copy === copies) {
      appendFileSync(file, chunk.join("\n") + "\n");
      chunk = [];
    }
  }
  return { threadId, items: 5 + copies * 3 };
}

async function resumeScenario(mock, home, workspace) {
  const { threadId, items } = await longThread(mock, home, workspace, RESUME_ITEMS);
  const spawnedAt = performance.now();
  const server = spawnServer(mock, home, workspace);
  await server.initialize();
  await server.request("thread/loaded/list", {});
  let answer;
  const figures = await measure(server, home, async () => {
    answer = await server.request("thread/resume", { threadId });
    return { note: `spawn→answer ${(performance.now() - spawnedAt).toFixed(0)} ms` };
  });
  // Parsed once measured: 28 MB take the client itself a few hundred ms.
  const got = answer.thread.turns.reduce((sum, turn) => sum + turn.items.length, 0);
  if (got !== items) throw new Error(`resume: ${got} of ${items} items`);
  return { server, figures };
}

// --- list: thread/list over 10,000 stored threads, copies of one real thread and its index line.

async function listScenario(mock, home, workspace) {
  const seed = spawnServer(mock, home, workspace);
  await seed.initialize();
  const threadId = (await seed.request("thread/start", { cwd: workspace })).thread.id;
  mock.push({ items: [{ type: "message", text: "hello" }] });
  await seed.turn(threadId, "hello");
  await seed.stop();
  const file = threadFile(home);
  const record = readFileSync(file, "utf8");
  const indexFile = path.join(home, "thread_index.jsonl");
  const indexLine = readFileSync(indexFile, "utf8").trim().split("\n").at(-1);
  const index = [];
  for (let i = 1; i < LIST_THREADS; i++) {
    const id = randomUUID();
    const copy = file.replaceAll(threadId, id);
    writeFileSync(copy, record.replaceAll(threadId, id));
    index.push(indexLine.replaceAll(threadId, id).replace(/"updatedAtMs":\d+/, `"updatedAtMs":${1_700_000_000_000 + i}`));
  }
  appendFileSync(indexFile, index.join("\n") + "\n");
  const server = spawnServer(mock, home, workspace);
  await server.initialize();
  await server.request("thread/loaded/list", {});
  const figures = await measure(server, home, async () => {
    let pages = 0;
    let cursor = null;
    let threads = 0;
    do {
      const page = await server.request("thread/list", { limit: 100, cursor });
      threads += page.data.length;
      cursor = page.nextCursor;
      pages++;
    } while (cursor && pages < 5);
    return { note: `${pages} pages of 100` };
  });
  return { server, figures };
}

// --- output: a command printing 50 MB in a turn.

async function outputScenario(mock, home, workspace) {
  const server = spawnServer(mock, home, workspace);
  await server.initialize();
  const threadId = (await server.request("thread/start", { cwd: workspace })).thread.id;
  mock.push({ items: [{ type: "exec", cmd: `yes ${"x".repeat(99)} | head -c ${OUTPUT_MB}000000`, yield_time_ms: 60_000 }] }, { items: [{ type: "message", text: "a lot" }] });
  const figures = await measure(server, home, async () => {
    await server.turn(threadId, "print a lot");
  });
  return { server, figures };
}

// --- fuzzy: fuzzyFileSearch over 100,000 files.

async function fuzzyScenario(mock, home, workspace) {
  for (let d = 0; d < FUZZY_FILES / 1000; d++) {
    const dir = path.join(workspace, `pkg${d}`, "src", "lib");
    mkdirSync(dir, { recursive: true });
    for (let f = 0; f < 1000; f++) writeFileSync(path.join(dir, `module${f}.ts`), "");
  }
  const server = spawnServer(mock, home, workspace);
  await server.initialize();
  await server.request("thread/loaded/list", {});
  const figures = await measure(server, home, async () => {
    const answer = await server.request("fuzzyFileSearch", { query: "pkg7srclibmod12", roots: [workspace] });
    return { note: `${answer.files.length} matches` };
  });
  return { server, figures };
}

const SCENARIOS = [
  ["patch", `apply_patch, ${PATCH_HUNKS} hunks on ${PATCH_LINES.toLocaleString("en")} lines`, patchScenario],
  ["read", `fs/readFile of ${READ_MB} MB`, readScenario],
  ["resume", `thread/resume of ${RESUME_ITEMS.toLocaleString("en")} items`, resumeScenario],
  ["list", `thread/list over ${LIST_THREADS.toLocaleString("en")} threads`, listScenario],
  ["output", `a command printing ${OUTPUT_MB} MB`, outputScenario],
  ["fuzzy", `fuzzyFileSearch over ${FUZZY_FILES.toLocaleString("en")} files`, fuzzyScenario],
];

const mock = await startMockModel();
const rows = [];
try {
  for (const [key, title, scenario] of SCENARIOS) {
    if (!ONLY.has(key)) continue;
    const home = benchHome("stalls-");
    const workspace = mkdtempSync(path.join(os.tmpdir(), "aas-stalls-ws-"));
    try {
      const { server, figures } = await scenario(mock, home, workspace);
      await server.stop();
      rows.push({ title, ...figures });
    } finally {
      rmSync(home, { recursive: true, force: true });
      rmSync(workspace, { recursive: true, force: true });
    }
  }
} finally {
  await mock.close();
}

const ms = (value) => (value === undefined || Number.isNaN(value) ? "—" : value.toFixed(1));
const table = [
  ["scenario", "work (ms)", "loop max (ms)", "probes", "probe median (ms)", "probe max (ms)", ""],
  ...rows.map((row) => [row.title, ms(row.workMs), ms(row.loopMax), String(row.probe.n), ms(row.probe.median), ms(row.probe.max), row.note ?? ""]),
];
const widths = table[0].map((_, column) => Math.max(...table.map((row) => row[column].length)));
for (const row of table) console.log(row.map((cell, column) => (column === 0 || column === 6 ? cell.padEnd(widths[column]) : cell.padStart(widths[column]))).join("  ").trimEnd());
const over = rows.filter((row) => row.loopMax > LIMIT_MS);
if (over.length > 0) console.log(`event loop stalled over ${LIMIT_MS} ms: ${over.map((row) => row.title).join("; ")}`);
if (CHECK && over.length > 0) process.exitCode = 1;
