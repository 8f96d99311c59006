/**
 * vitest global setup: collects, from every test worker, the tests skipped for want of a system
 * program (bubblewrap, strace, ripgrep…), and prints one summary line at the end that says what
 * was skipped and how to install what is missing. Workers append to a file named in
 * `AAS_SKIPS_FILE` (missingProgram in programs.ts); nothing is printed when nothing was skipped.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";

export default function setup(): () => void {
  const dir = mkdtempSync(path.join(os.tmpdir(), "aas-skips-"));
  const file = path.join(dir, "skips.tsv");
  process.env.AAS_SKIPS_FILE = file;
  return () => {
    let lines: string[] = [];
    try {
      lines = readFileSync(file, "utf8").split("\n").filter(Boolean);
    } catch {
      // Nothing was skipped.
    }
    rmSync(dir, { recursive: true, force: true });
    if (lines.length === 0) return;
    const byProgram = new Map<string, { install: string; what: Set<string> }>();
    for (const line of lines) {
      const [program = "", install = "", what = ""] = line.split("\t");
      const entry = byProgram.get(program) ?? { install, what: new Set<string>() };
      entry.what.add(what);
      byProgram.set(program, entry);
    }
    const parts = [...byProgram].map(([program, { install, what }]) => `${program} is missing (${[...what].join("; ")}; install: ${install})`);
    process.stderr.write(`\nSkipped: ${parts.join(". ")}.\n`);
  };
}
