#!/usr/bin/env node
// `npm run test:load`: runs `npm test` again and again while CPU-heavy jobs run beside it, and
// counts the runs that pass. The suite's waits are on events with timeouts sized for a loaded
// machine; this is the check that they are (a flaky wait shows here long before it shows in CI).
//
// usage: node scripts/test-under-load.mjs [--runs N] [--load N]
//   --runs  how many `npm test` runs (default 10)
//   --load  how many busy loops run beside them, each one a whole core (default: one per core)
// Prints one line per run (pass/fail, seconds) and a summary; exits 1 unless every run passed.
// Each failing run's output is kept in a file named in its line.
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

function option(name, fallback) {
  const at = process.argv.indexOf(name);
  if (at === -1) return fallback;
  const value = Number(process.argv[at + 1]);
  if (!Number.isInteger(value) || value < 0) {
    console.error(`test-under-load: ${name} takes a whole number (usage: node scripts/test-under-load.mjs [--runs N] [--load N])`);
    process.exit(2);
  }
  return value;
}

const runs = option("--runs", 10);
const load = option("--load", os.availableParallelism());
const logs = mkdtempSync(path.join(os.tmpdir(), "test-under-load-"));

// A busy loop per core: the heaviest neighbour a developer's machine has (a build, a browser).
const busy = Array.from({ length: load }, () => spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" }));
const stopBusy = () => busy.forEach((child) => child.kill("SIGKILL"));
process.on("exit", stopBusy);
// Stopped by a signal, the busy loops go too ("exit" handlers do not run on a signal's default action).
process.on("SIGINT", () => process.exit(130));
process.on("SIGTERM", () => process.exit(143));

function npmTest() {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn("npm", ["test", "--silent"], { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    child.on("close", (code) => resolve({ passed: code === 0, seconds: (performance.now() - started) / 1000, output }));
  });
}

console.log(`test-under-load: ${runs} runs of npm test beside ${load} busy loop(s) on ${os.availableParallelism()} core(s)`);
let passed = 0;
const seconds = [];
for (let run = 1; run <= runs; run++) {
  const result = await npmTest();
  seconds.push(result.seconds);
  if (result.passed) {
    passed++;
    console.log(`run ${run}: passed in ${result.seconds.toFixed(0)} s`);
  } else {
    const log = path.join(logs, `run-${run}.log`);
    writeFileSync(log, result.output);
    console.log(`run ${run}: FAILED in ${result.seconds.toFixed(0)} s; output in ${log}`);
  }
}
const sorted = [...seconds].sort((a, b) => a - b);
const median = sorted[Math.floor((sorted.length - 1) / 2)] ?? 0;
console.log(`test-under-load: ${passed}/${runs} passed; median ${median.toFixed(0)} s, slowest ${(sorted.at(-1) ?? 0).toFixed(0)} s`);
process.exit(passed === runs ? 0 : 1);
