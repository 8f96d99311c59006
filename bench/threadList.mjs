#!/usr/bin/env node
// Figures for `thread/list` over many stored threads: spawns the built server on a home holding
// N threads (created through the server's own thread/start, then a restart), and prints the
// median latency of the first page, cold (first list after start-up) and warm.
// Usage: npm run build && node bench/threadList.mjs [--threads 10000] [--runs 5]
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { CLI, median, startServer as spawnServer } from "./lib.mjs";

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i === -1 ? fallback : Number(args[i + 1]);
};
const THREADS = option("--threads", 10_000);
const RUNS = option("--runs", 5);
const startServer = (home) => spawnServer([process.execPath, CLI, "app-server"], { ...process.env, AGENT_APP_SERVER_HOME: home, LOG_LEVEL: "error" });
const home = mkdtempSync(path.join(os.tmpdir(), "aas-bench-list-"));
try {
  const seed = startServer(home);
  await seed.initialize();
  const seedStart = performance.now();
  for (let done = 0; done < THREADS; done += 50) {
    await Promise.all(Array.from({ length: Math.min(50, THREADS - done) }, () => seed.request("thread/start", { ephemeral: false })));
  }
  const seedMs = performance.now() - seedStart;
  await seed.stop();

  const cold = [];
  const warm = [];
  for (let run = 0; run < RUNS; run++) {
    const server = startServer(home);
    await server.initialize();
    let t = performance.now();
    const page = await server.request("thread/list", { limit: 25 });
    cold.push(performance.now() - t);
    if (page.data.length !== 25) throw new Error("short page");
    t = performance.now();
    await server.request("thread/list", { limit: 25 });
    warm.push(performance.now() - t);
    await server.stop();
  }
  const fmt = (v) => `${median(v).toFixed(1)} ms (min ${Math.min(...v).toFixed(1)}, max ${Math.max(...v).toFixed(1)})`;
  console.log(`threads stored:                ${THREADS} (thread/start x${THREADS}: ${(seedMs / 1000).toFixed(1)} s, ${(THREADS / (seedMs / 1000)).toFixed(0)}/s)`);
  console.log(`thread/list first page, cold:  ${fmt(cold)}`);
  console.log(`thread/list first page, warm:  ${fmt(warm)}`);
} finally {
  rmSync(home, { recursive: true, force: true });
}
