import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

// git with no user or system configuration (a diff.algorithm or diff.noprefix there would change its output).
const GIT_ENV = { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" };

/**
 * `git diff --no-index` from `before` to `after` (null: the file is absent) as our diffs show a
 * file at `file`: that path on both sides, without the `index` lines (blob ids we do not compute)
 * and without the function names git appends to hunk headers.
 */
export function gitDiff(file: string, before: string | null, after: string | null): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "aas-gitdiff-"));
  try {
    const sides = [before, after].map((text, k) => {
      if (text === null) return "/dev/null";
      const side = path.join(dir, k === 0 ? "before" : "after");
      writeFileSync(side, text);
      return side;
    });
    const result = spawnSync("git", ["diff", "--no-index", "--no-color", "--no-ext-diff", ...sides], { cwd: dir, env: GIT_ENV, encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
    // 1: the files differ.
    if (result.status !== 0 && result.status !== 1) throw new Error(`git diff failed (${result.status}): ${result.stderr}`);
    return sides
      .filter((side) => side !== "/dev/null")
      .reduce((text, side) => text.replaceAll(side, file), result.stdout)
      .replace(/^index [0-9a-f]+\.\.[0-9a-f]+( \d+)?\n/gm, "")
      .replace(/^(@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@).*$/gm, "$1");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Only the hunks of {@link gitDiff} (what a `fileChange` update carries): "" when equal. */
export function gitHunks(before: string, after: string): string {
  const diff = gitDiff("/file", before, after);
  const first = diff.search(/^@@ /m);
  return first === -1 ? "" : diff.slice(first);
}

/** Applies `hunks` to `before` with `git apply` and returns the result. */
export function gitApply(before: string, hunks: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "aas-gitapply-"));
  try {
    writeFileSync(path.join(dir, "file"), before);
    writeFileSync(path.join(dir, "change.patch"), `--- a/file\n+++ b/file\n${hunks}`);
    const result = spawnSync("git", ["apply", "change.patch"], { cwd: dir, env: GIT_ENV, encoding: "utf8" });
    if (result.status !== 0) throw new Error(`git apply failed: ${result.stderr}`);
    return readFileSync(path.join(dir, "file"), "utf8");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
