#!/usr/bin/env node
// `npm run bench`: speed and memory of the built server (or any server speaking the protocol,
// `--server "CMD"`, with {MOCK_URL} and {HOME} substituted) against the mock model on 127.0.0.1.
// Prints median (min–max) over --runs and writes bench/results/latest.json.
//   node bench/run.mjs [--runs 5] [--deltas 2000] [--concurrency 20] [--server "CMD"]... [--json FILE]
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { startMockModel } from "../dist/testing/index.js";
import { CLI, median, procStatusKb, startServer } from "./lib.mjs";

const argv = process.argv.slice(2);
const option = (name, fallback) => {
  const i = argv.indexOf(name);
  return i === -1 ? fallback : argv[i + 1];
};
const RUNS = Number(option("--runs", 5));
const DELTAS = Number(option("--deltas", 2000));
const CONCURRENCY = Number(option("--concurrency", 20));
const JSON_FILE = option("--json", path.join(path.dirname(CLI), "../bench/results/latest.json"));
const servers = argv.flatMap((arg, i) => (arg === "--server" ? [argv[i + 1]] : []));
const OURS = "ours";
if (servers.length === 0) servers.push(OURS);

const TARGETS = {
  cold_start_ms: "≤ 100",
  thread_start_ms: "≤ 5",
  instant_turn_ms: "≤ 20",
  deltas_per_s: "≥ 40000",
  stream_peak_rss_mib: "≤ 100",
  idle_rss_mib: "≤ 70",
  concurrent_20_turns_ms: "≤ 400",
};

function commandFor(server, mockUrl, home) {
  if (server === OURS) {
    return [process.execPath, CLI, "app-server", "-c", `model_provider="mock"`, "-c", `model_providers.mock={name="mock",base_url="${mockUrl}",wire_api="responses",request_max_retries=0,stream_max_retries=0}`, "-c", `model="gpt-5.5"`, "-c", `approval_policy="never"`, "-c", `sandbox_mode="danger-full-access"`];
  }
  return server.replaceAll("{MOCK_URL}", mockUrl).replaceAll("{HOME}", home).split(" ").filter(Boolean);
}

/** One run against one server: a fresh home, a fresh process for each figure group. */
async function runOnce(server, mock) {
  const home = mkdtempSync(path.join(os.tmpdir(), "aas-bench-"));
  const env = { ...process.env, AGENT_APP_SERVER_HOME: home, CODEX_HOME: home, HOME: home, LOG_LEVEL: "error", MOCK_MODEL_URL: mock.url, OPENAI_BASE_URL: mock.url };
  const figures = {};
  try {
    // Cold start, idle memory, thread/start, instant turns.
    let t = performance.now();
    const s = startServer(commandFor(server, mock.url, home), env);
    await s.initialize();
    figures.cold_start_ms = performance.now() - t;
    // Idle: initialized, nothing loaded yet.
    figures.idle_rss_mib = (procStatusKb(s.child.pid, "VmRSS") ?? NaN) / 1024;
    const workspace = mkdtempSync(path.join(os.tmpdir(), "aas-bench-ws-"));
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
      const done = s.next((m) => m.method === "turn/completed");
      await s.request("turn/start", { threadId, input: [{ type: "text", text: "hi" }] });
      await done;
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
    const streamed = s.next((m) => m.method === "turn/completed");
    await s.request("turn/start", { threadId, input: [{ type: "text", text: "stream" }] });
    await streamed;
    off();
    if (count !== DELTAS) throw new Error(`received ${count} of ${DELTAS} deltas`);
    figures.deltas_per_s = count / ((last - first) / 1000);
    figures.stream_peak_rss_mib = (procStatusKb(s.child.pid, "VmHWM") ?? NaN) / 1024;
    await s.stop();

    // Concurrent threads, each with one turn.
    const c = startServer(commandFor(server, mock.url, home), env);
    await c.initialize();
    for (let i = 0; i < CONCURRENCY; i++) mock.push({ items: [{ type: "message", text: `answer ${i}` }] });
    t = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        const id = (await c.request("thread/start", { cwd: workspace })).thread.id;
        const done = c.next((m) => m.method === "turn/completed" && m.params.threadId === id);
        await c.request("turn/start", { threadId: id, input: [{ type: "text", text: "go" }] });
        await done;
      }),
    );
    figures.concurrent_20_turns_ms = performance.now() - t;
    await c.stop();
    rmSync(workspace, { recursive: true, force: true });
    return figures;
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

const mock = await startMockModel();
const results = {};
try {
  for (const server of servers) {
    const runs = [];
    for (let run = 0; run < RUNS; run++) runs.push(await runOnce(server, mock));
    results[server] = Object.fromEntries(
      Object.keys(runs[0]).map((metric) => {
        const values = runs.map((figures) => figures[metric]);
        return [metric, { median: median(values), min: Math.min(...values), max: Math.max(...values), runs: values.length }];
      }),
    );
  }
} finally {
  await mock.close();
}

const fmt = (value) => (value >= 100 ? value.toFixed(0) : value.toFixed(1));
const metrics = Object.keys(Object.values(results)[0]);
const header = ["metric", ...servers.map((server) => (server === OURS ? "agent-app-server" : server.split(" ")[0])), "target"];
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
console.log(`\n${RUNS} runs, ${DELTAS} deltas, ${CONCURRENCY} concurrent turns; ${os.cpus().length} CPUs, Node ${process.version}, ${os.platform()} ${os.release()}`);
mkdirSync(path.dirname(JSON_FILE), { recursive: true });
writeFileSync(JSON_FILE, JSON.stringify({ date: new Date().toISOString(), runs: RUNS, deltas: DELTAS, concurrency: CONCURRENCY, machine: { cpus: os.cpus().length, node: process.version, platform: `${os.platform()} ${os.release()}` }, results }, null, 2) + "\n");
console.log(`figures written to ${path.relative(process.cwd(), JSON_FILE)}`);
