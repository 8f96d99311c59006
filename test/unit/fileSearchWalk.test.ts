import { execFileSync } from "node:child_process";
import { closeSync, mkdirSync, mkdtempSync, openSync, readdirSync, readlinkSync, writeFileSync, constants } from "node:fs";
import { open } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { searchFiles } from "../../src/workspace/fileSearch.js";
import { MAX_DEPTH } from "../../src/workspace/treeWalk.js";
import { parseQuery } from "../support/fuzzy.js";

/** Levels of the deep tree: past MAX_DEPTH, and deep enough that a walk recursing per level ran out of stack. */
const LEVELS = 4_500;

let root: string;

beforeAll(() => {
  root = mkdtempSync(path.join(os.tmpdir(), "aas-deep-"));
  // Built through descriptors: the deepest paths are far longer than PATH_MAX.
  let fd = openSync(root, constants.O_RDONLY | constants.O_DIRECTORY);
  for (let level = 1; level <= LEVELS; level++) {
    mkdirSync(`/proc/self/fd/${fd}/d`);
    writeFileSync(`/proc/self/fd/${fd}/d/level${level}x`, "");
    const child = openSync(`/proc/self/fd/${fd}/d`, constants.O_RDONLY | constants.O_DIRECTORY);
    closeSync(fd);
    fd = child;
  }
  closeSync(fd);
});

afterAll(() => {
  // rm walks by descriptor too; Node's rmSync would stop at PATH_MAX.
  execFileSync("rm", ["-rf", root]);
});

async function search(query: string) {
  const handle = await open(root, "r");
  try {
    return await searchFiles(handle, parseQuery(query), 50, new AbortController().signal);
  } finally {
    await handle.close();
  }
}

describe("searchFiles on a very deep tree", () => {
  it("answers, finds what is within MAX_DEPTH, enters nothing deeper, and leaves no descriptor open", async () => {
    const within = await search(`level${MAX_DEPTH}x`);
    expect(within.map((match) => match.fileName)).toContain(`level${MAX_DEPTH}x`);
    expect(await search(`level${MAX_DEPTH + 1}x`)).toEqual([]);
    expect(await search(`level${LEVELS}x`)).toEqual([]);
    // Descriptors into the tree, not a count: test files share this process, and another file's
    // server may start a process (its warm-up's login shell) meanwhile.
    expect(openInto(root)).toEqual([]);
  });
});

/** This process's descriptors open on `dir` or below it. */
function openInto(dir: string): string[] {
  return readdirSync("/proc/self/fd").flatMap((fd) => {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      return target === dir || target.startsWith(`${dir}/`) ? [target] : [];
    } catch (error) {
      // Closed since it was listed (the listing's own descriptor, say); a path too long to show is the deep tree's.
      return (error as NodeJS.ErrnoException).code === "ENOENT" ? [] : [`fd ${fd}: ${(error as Error).message}`];
    }
  });
}
