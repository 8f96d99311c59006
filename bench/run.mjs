#!/usr/bin/env node
// `npm run bench`: speed and memory of the built server (or any server speaking the protocol,
// `--server "CMD"`, with {MOCK_URL}, {HOME} and {MOCK_FLAGS} substituted; `--server ours` is the
// built server) against the mock model on 127.0.0.1.
// Prints median (min–max) over --runs and writes bench/results/latest.json.
//   node bench/run.mjs [--runs 5] [--deltas 2000] [--concurrency 20] [--items 5000] [--server "CMD"]... [--json FILE]
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { startMockModel } from "../dist/testing/index.js";
import { benchHome, CLI, median, mockProviderFlags, procStatusKb, startServer } from "./lib.mjs";

const argv = process.argv.slice(2);
const option = (name, fallback) => {
  const i = argv.indexOf(name);
  return i === -1 ? fallback : argv[i + 1];
};
const RUNS = Number(option("--runs", 5));
const DELTAS = Number(option("--deltas", 2000));
const CONCURRENCY = Number(option("--concurrency", 20));
const ITEMS = Number(option("--items", 5000));
const JSON_FILE = option("--json", path.join(path.dirname(CLI), "../bench/results/latest.json"));
const servers = argv.flatMap((arg, i) => (arg === "--server" ? [argv[i + 1]] : []));
const OURS = "ours";
if (servers.length === 0) servers.push(OURS);
const RESUME = `resume_${ITEMS}_items_ms`;

const TARGETS = {
  cold_start_fresh_home_ms: "≤ 100",
  cold_start_reused_home_ms: "≤ Codex's",
  spawn_to_thread_start_reused_home_ms: "",
  thread_start_ms: "≤ 5",
  instant_turn_ms: "≤ 20",
  deltas_per_s: "≥ 40000",
  stream_peak_rss_mib: "≤ 100",
  idle_rss_mib: "≤ 70",
  concurrent_20_turns_ms: "≤ 400",
  resume_5000_items_ms: "≤ 300",
};

function commandFor(server, mockUrl, home) {
  if (server === OURS) return [process.execPath, CLI, "app-server", ...mockProviderFlags(mockUrl)];
  return server
    .split(" ")
    .filter(Boolean)
    .flatMap((arg) => (arg === "{MOCK_FLAGS}" ? mockProviderFlags(mockUrl) : [arg.replaceAll("{MOCK_URL}", mockUrl).replaceAll("{HOME}", home)]));
}

/** A server process on `home` (its own home, CODEX_HOME and HOME), talking to the mock. */
function spawnOn(server, mock, home) {
  const env = { ...process.env, AGENT_APP_SERVER_HOME: home, CODEX_HOME: home, HOME: home, LOG_LEVEL: "error", MOCK_MODEL_URL: mock.url, OPENAI_BASE_URL: mock.url };
  return startServer(commandFor(server, mock.url, home), env);
}

// One turn of the long thread: the model thinks, says something and runs a command, 8 times in
// one response (parallel tool calls), then answers after the outputs: 26 items with the user's.
const LONG_TURN = [
  { items: Array.from({ length: 8 }, (_, i) => [{ type: "reasoning", summary: [`Step ${i}: look at the files.`] }, { type: "message", text: `Running step ${i}.` }, { type: "exec", cmd: `echo step ${i}` }]).flat() },
  { items: [{ type: "message", text: "All steps ran." }] },
];

/**
 * Builds, through the server's own turns, a stored thread of at least ITEMS items; returns its home
 * and id. Its own mock model: the requests it records (each with the whole history) go with it.
 */
async function buildLongThread(server, workspace) {
  const mock = await startMockModel();
  const home = benchHome();
  const s = spawnOn(server, mock, home);
  try {
    await s.initialize();
    const threadId = (await s.request("thread/start", { cwd: workspace })).thread.id;
    let items = 0;
    s.on((m) => m.method === "item/completed" && items++);
    let turns = 0;
    for (; items < ITEMS; turns++) {
      mock.push(...LONG_TURN);
      await s.turn(threadId, `Turn ${turns}: run the steps.`);
    }
    if (mock.requests.length !== turns * LONG_TURN.length) throw new Error(`${server}: ${mock.requests.length} model requests for ${turns} scripted turns`);
    return { home, threadId };
  } catch (error) {
    rmSync(home, { recursive: true, force: true });
    throw error;
  } finally {
    await s.stop();
    await mock.close();
  }
}

/** `thread/resume` of the long thread on a fresh server process: request → response. */
async function timeResume(server, mock, long) {
  const s = spawnOn(server, mock, long.home);
  try {
    await s.initialize();
    const t = performance.now();
    const { thread } = await s.request("thread/resume", { threadId: long.threadId });
    const ms = performance.now() - t;
    const items = thread.turns.reduce((sum, turn) => sum + turn.items.length, 0);
    if (items < ITEMS) throw new Error(`resumed thread has ${items} items, expected ${ITEMS} or more`);
    return ms;
  } finally {
    await s.stop();
  }
}

/** One run against one server: a fresh home, a fresh process for each figure group. */
async function runOnce(server, mock, workspace) {
  const home = benchHome();
  const figures = {};
  try {
    // Cold start, idle memory, thread/start, instant turns.
    let t = performance.now();
    const s = spawnOn(server, mock, home);
    await s.initialize();
    figures.cold_start_fresh_home_ms = performance.now() - t;
    // Idle: initialized, nothing loaded yet.
    figures.idle_rss_mib = (procStatusKb(s.child.pid, "VmRSS") ?? NaN) / 1024;
    await s.request("thread/start", { cwd: workspace });
    const starts = [];
    let threadId;
    for (let i = 0; i < 5; i++) {
      t = performance.now();
      threadId = (await s.request("thread/start", { cwd: workspace })).thread.id;
      starts.push(performance.now() - t);
    }
    figures.thread_start_ms = median(starts);
    const turns = [];
    for (let i = 0; i < 6; i++) {
      mock.push({ items: [{ type: "message", text: "ok" }] });
      t = performance.now();
      await s.turn(threadId, "hi");
      turns.push(performance.now() - t);
    }
    figures.first_turn_ms = turns[0];
    figures.instant_turn_ms = median(turns.slice(1));

    // Streaming throughput and peak memory.
    mock.push({ items: [{ type: "message", repeat: DELTAS, delta: "tok " }] });
    let first = 0;
    let last = 0;
    let count = 0;
    const off = s.on((m) => {
      if (m.method !== "item/agentMessage/delta") return;
      last = performance.now();
      first ||= last;
      count++;
    });
    await s.turn(threadId, "stream");
    off();
    if (count !== DELTAS) throw new Error(`received ${count} of ${DELTAS} deltas`);
    figures.deltas_per_s = count / ((last - first) / 1000);
    figures.stream_peak_rss_mib = (procStatusKb(s.child.pid, "VmHWM") ?? NaN) / 1024;
    await s.stop();

    // Cold start again on the now populated home: what a user sees every day after the first
    // start (the neutral bench's "reused home" figure; a first start is slower for Codex).
    t = performance.now();
    const again = spawnOn(server, mock, home);
    await again.initialize();
    figures.cold_start_reused_home_ms = performance.now() - t;
    // What a client waits for before it can work: the first thread/start answered.
    await again.request("thread/start", { cwd: workspace });
    figures.spawn_to_thread_start_reused_home_ms = performance.now() - t;
    await again.stop();

    // Concurrent threads, each with one turn.
    const c = spawnOn(server, mock, home);
    await c.initialize();
    for (let i = 0; i < CONCURRENCY; i++) mock.push({ items: [{ type: "message", text: `answer ${i}` }] });
    t = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        const id = (await c.request("thread/start", { cwd: workspace })).thread.id;
        await c.turn(id, "go");
      }),
    );
    figures.concurrent_20_turns_ms = performance.now() - t;
    await c.stop();
    return figures;
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

// Servers take turns within each run (the order alternating), so a noisy spell hits them alike.
const mock = await startMockModel();
const workspace = mkdtempSync(path.join(os.tmpdir(), "aas-bench-ws-"));
const longThreads = {};
const runs = Object.fromEntries(servers.map((server) => [server, []]));
try {
  for (const server of servers) longThreads[server] = await buildLongThread(server, workspace);
  for (let run = 0; run < RUNS; run++) {
    for (const server of run % 2 ? [...servers].reverse() : servers) {
      runs[server].push({ ...(await runOnce(server, mock, workspace)), [RESUME]: await timeResume(server, mock, longThreads[server]) });
    }
  }
} finally {
  await mock.close();
  for (const dir of [workspace, ...Object.values(longThreads).map((long) => long.home)]) rmSync(dir, { recursive: true, force: true });
}
const results = Object.fromEntries(
  servers.map((server) => [
    server,
    Object.fromEntries(
      Object.keys(runs[server][0]).map((metric) => {
        const values = runs[server].map((figures) => figures[metric]);
        return [metric, { median: median(values), min: Math.min(...values), max: Math.max(...values), runs: values.length }];
      }),
    ),
  ]),
);

const fmt = (value) => (value >= 100 ? value.toFixed(0) : value.toFixed(1));
const metrics = Object.keys(Object.values(results)[0]);
const header = ["metric", ...servers.map((server) => (server === OURS ? "agent-app-server" : path.basename(server.split(" ")[0]))), "target"];
const rows = metrics.map((metric) => [
  metric,
  ...servers.map((server) => {
    const figure = results[server][metric];
    return `${fmt(figure.median)} (${fmt(figure.min)}–${fmt(figure.max)})`;
  }),
  TARGETS[metric] ?? "",
]);
const widths = header.map((_, column) => Math.max(...[header, ...rows].map((row) => row[column].length)));
for (const row of [header, ...rows]) console.log(row.map((cell, column) => cell.padEnd(widths[column])).join("  "));
console.log(`\n${RUNS} runs, ${DELTAS} deltas, ${CONCURRENCY} concurrent turns, resume of ${ITEMS} items; ${os.cpus().length} CPUs, Node ${process.version}, ${os.platform()} ${os.release()}`);
// Said with every table, so that no figure is read as the neutral harness's.
console.log(
  "Differs from ../shared/peer/bench.mjs: each server gets its bench home as HOME too (the neutral bench keeps the real HOME); " +
    "cold_start_fresh_home_ms is a first start on an empty home (slower for Codex, which sets its home up), cold_start_reused_home_ms the neutral bench's cold start; " +
    "quote cold start and the comparison from the neutral bench, run with both servers in one session.",
);
mkdirSync(path.dirname(JSON_FILE), { recursive: true });
writeFileSync(JSON_FILE, JSON.stringify({ date: new Date().toISOString(), runs: RUNS, deltas: DELTAS, concurrency: CONCURRENCY, items: ITEMS, servers, machine: { cpus: os.cpus().length, node: process.version, platform: `${os.platform()} ${os.release()}` }, results }, null, 2) + "\n");
console.log(`figures written to ${path.relative(process.cwd(), JSON_FILE)}`);
