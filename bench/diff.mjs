#!/usr/bin/env node
// Figures for the diffs of `fileChange` items and `turn/diff/updated`: diffs generated files of
// 2,000 and 10,000 lines with one line changed (and, for the slower paths, 10,000 lines with 500
// lines changed apart, with 500 pairs of lines swapped, and with every line changed) and prints,
// median (min–max) over --runs after a warm-up, the total time of one diff and the longest the
// event loop was held during it: the longest gap between setImmediate ticks that run alongside
// (a diff that never yields holds it for its whole time).
// Usage: npm run build && node bench/diff.mjs [--runs 10] [--module FILE]
//   --module: another implementation exporting unifiedDiff(before, after) (sync or async), to
//   compare; default the built one.
import path from "node:path";
import { pathToFileURL } from "node:url";
import { CLI, median } from "./lib.mjs";

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i === -1 ? fallback : args[i + 1];
};
const RUNS = Number(option("--runs", 10));
const MODULE = path.resolve(option("--module", path.join(path.dirname(CLI), "agent/patch/unifiedDiff.js")));
const { unifiedDiff } = await import(pathToFileURL(MODULE).href);

/** A source-like file of `lines` lines, and the same with the lines `changed` picks rewritten. */
function files(lines, changed) {
  const before = Array.from({ length: lines }, (_, i) => `  const value${i} = compute(${i}, "line ${i}");\n`);
  const after = before.map((line, i) => (changed(i) ? `  const value${i} = recompute(${i});\n` : line));
  return [before.join(""), after.join("")];
}

/** A file of `lines` lines, and the same with one pair of neighbours swapped every `every` lines (lines kept: a longer edit script). */
function swapped(lines, every) {
  const [before] = files(lines, () => false);
  const after = before.split("\n");
  for (let i = 7; i + 1 < lines; i += every) [after[i], after[i + 1]] = [after[i + 1], after[i]];
  return [before, after.join("\n")];
}

/** Total time of `run()` and the longest stretch without a setImmediate tick during it (ms). */
async function measure(run) {
  let longest = 0;
  let last = performance.now();
  let running = true;
  const tick = () => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  const start = performance.now();
  const diff = await run();
  const end = performance.now();
  running = false;
  return { total: end - start, longest: Math.max(longest, end - last), diff };
}

const scenarios = [
  ["2,000 lines, 1 changed", files(2_000, (i) => i === 1_000)],
  ["10,000 lines, 1 changed", files(10_000, (i) => i === 5_000)],
  ["10,000 lines, 500 changed apart", files(10_000, (i) => i % 20 === 7)],
  ["10,000 lines, 500 pairs swapped", swapped(10_000, 20)],
  ["10,000 lines, all changed", files(10_000, () => true)],
];
const fmt = (values) => `${median(values).toFixed(1)} (${Math.min(...values).toFixed(1)}–${Math.max(...values).toFixed(1)})`;
console.log(`module: ${path.relative(process.cwd(), MODULE)}, ${RUNS} runs after 3 warm-up runs; ms, median (min–max)`);
for (const [name, [before, after]] of scenarios) {
  for (let i = 0; i < 3; i++) await measure(() => unifiedDiff(before, after));
  const totals = [];
  const blocks = [];
  let hunks = 0;
  for (let i = 0; i < RUNS; i++) {
    const { total, longest, diff } = await measure(() => unifiedDiff(before, after));
    totals.push(total);
    blocks.push(longest);
    hunks = diff.split("\n").filter((line) => line.startsWith("@@")).length;
  }
  console.log(`${name.padEnd(32)} total ${fmt(totals).padEnd(24)} longest event-loop block ${fmt(blocks).padEnd(22)} ${hunks} hunk(s)`);
}
