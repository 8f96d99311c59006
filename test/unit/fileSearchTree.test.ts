import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { open } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compareMatches, joinedBefore, searchFiles } from "../../src/workspace/fileSearch.js";
import { fuzzyMatch, parseQuery } from "../support/fuzzy.js";

/**
 * The search (a walk by descriptor, each directory's entries matched as directory + name, a path
 * built only for a match that may make the best 50) against the plainest reading of what it must
 * return: every path under the root, outside .git and node_modules and not through a symlink or a
 * name that is not UTF-8, matched whole, sorted, the first 50.
 */

/** Queries: many equal scores (ties broken by path), case-sensitive, non-ASCII, several words, and 300 distinct words (matched in steps). */
const QUERIES = ["hndlr", "hx", "Main", "é", "k", "😀", "src ts", "module handler component src ts pkg ".repeat(8), Array.from({ length: 300 }, (_, i) => `${i}`).join(" ")];

let root: string;
let outside: string;

beforeAll(() => {
  root = mkdtempSync(path.join(os.tmpdir(), "aas-search-tree-"));
  outside = mkdtempSync(path.join(os.tmpdir(), "aas-search-outside-"));
  writeFileSync(path.join(outside, "component_0_handler.ts"), "");
  // Directories whose names sort around "/" (- and . before it, b after), each with the same files:
  // hundreds of equal scores, so the best 50 are decided by path.
  for (const dir of ["a", "a-b", "a.b", "ab", "a b", "a/b", "a/b-c", "a/b/c", "b", "b-"]) {
    mkdirSync(path.join(root, dir), { recursive: true });
    for (let file = 0; file < 30; file++) writeFileSync(path.join(root, dir, `x${file}_handler.ts`), "");
  }
  // Nested packages, with names every query above finds something in.
  for (let pkg = 0; pkg < 3; pkg++) {
    const dir = path.join(root, `pkg${pkg}`, "src", "module", "deep", "deeper");
    mkdirSync(dir, { recursive: true });
    for (let file = 0; file < 20; file++) writeFileSync(path.join(dir, `component_${file}_handler${file % 3 === 0 ? "Main" : ""}.ts`), "");
    writeFileSync(path.join(dir, "é😀_Kelvin\u212A_0123456789012345678901234567890123456789.txt"), "");
  }
  // A directory too big to read whole (over 16 KiB): read a few entries at a time.
  mkdirSync(path.join(root, "big"));
  for (let file = 0; file < 1500; file++) writeFileSync(path.join(root, "big", `entry_${file}_of_a_big_directory_hx.txt`), "");
  // Never searched, listed but not entered, a FIFO that must not block, and a name that is not UTF-8 (listed, not entered).
  for (const skipped of [".git", "node_modules"]) {
    mkdirSync(path.join(root, skipped, "src"), { recursive: true });
    writeFileSync(path.join(root, skipped, "src", "component_0_handler.ts"), "");
  }
  symlinkSync(outside, path.join(root, "src-link"));
  execFileSync("mkfifo", [path.join(root, "handler.fifo")]);
  const notUtf8 = Buffer.concat([Buffer.from(`${root}/src-`), Buffer.from([0xff]), Buffer.from("-handler")]);
  mkdirSync(notUtf8);
  writeFileSync(Buffer.concat([notUtf8, Buffer.from("/component_1_handler.ts")]), "");
});

afterAll(() => {
  for (const dir of [root, outside]) rmSync(dir, { recursive: true, force: true });
});

/** Every path the search may report: recursively, by name, entering only real directories that are not skipped and whose name is UTF-8. */
function expectedPaths(): Array<{ path: string; directory: boolean }> {
  const found: Array<{ path: string; directory: boolean }> = [];
  const visit = (relative: string) => {
    for (const entry of readdirSync(path.join(root, relative), { withFileTypes: true })) {
      if (entry.isDirectory() && [".git", "node_modules"].includes(entry.name)) continue;
      const child = relative === "" ? entry.name : `${relative}/${entry.name}`;
      found.push({ path: child, directory: entry.isDirectory() });
      if (entry.isDirectory() && !entry.name.includes("\uFFFD")) visit(child);
    }
  };
  visit("");
  return found;
}

/** The best `limit` for `query`, each path matched whole. */
function expectedMatches(query: string, limit = 50) {
  const parsed = parseQuery(query);
  return expectedPaths()
    .flatMap(({ path: found, directory }) => {
      const match = fuzzyMatch(parsed, found);
      const fileName = found.slice(found.lastIndexOf("/") + 1);
      return match ? [{ path: found, fileName, matchType: directory ? "directory" : "file", ...match }] : [];
    })
    .sort(compareMatches)
    .slice(0, limit);
}

/** Descriptors this process has open on the trees of this file. */
function treeDescriptors(): number {
  return readdirSync("/proc/self/fd").filter((fd) => {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      return target.startsWith(root) || target.startsWith(outside);
    } catch {
      return false;
    }
  }).length;
}

describe("joinedBefore", () => {
  it("orders a directory and a name as the path they make, without making it", () => {
    // Characters around "/" in code-unit order, and paths that are prefixes of one another.
    const chars = Array.from(".-/ab😀");
    let state = 5;
    const next = () => (state = (state * 1664525 + 1013904223) >>> 0) / 2 ** 32;
    const text = (length: number) => Array.from({ length }, () => chars[Math.floor(next() * chars.length)]).join("");
    for (let run = 0; run < 20_000; run++) {
      const [dir, name] = [run % 7 === 0 ? "" : text(Math.floor(next() * 4)), text(1 + Math.floor(next() * 3))];
      const joined = dir === "" ? name : `${dir}/${name}`;
      // Often a path sharing a start with the joined one, sometimes the same.
      const other = run % 5 === 0 ? joined : `${joined.slice(0, Math.floor(next() * (joined.length + 1)))}${text(Math.floor(next() * 3))}`;
      expect(joinedBefore(dir, name, other), `${dir} + ${name} vs ${other}`).toBe(joined < other);
    }
  });
});

describe("searchFiles over a tree", () => {
  it("finds the same files, scores and indices as matching every path whole, and leaves no descriptor open", async () => {
    const handle = await open(root, "r");
    try {
      for (const query of QUERIES) {
        const expected = expectedMatches(query);
        expect(expected.length, query).toBeGreaterThan(0);
        expect(await searchFiles(handle, parseQuery(query), 50, new AbortController().signal), query).toEqual(expected);
      }
      // Every entry of the big directory, each once.
      const all = await searchFiles(handle, parseQuery("directory_hx"), 5_000, new AbortController().signal);
      expect(all).toHaveLength(1500);
      expect(all).toEqual(expectedMatches("directory_hx", 5_000));
    } finally {
      await handle.close();
    }
    expect(treeDescriptors()).toBe(0);
  });

  it("stops when cancelled, closing the directories it had open", async () => {
    const handle = await open(root, "r");
    const cancel = new AbortController();
    try {
      const search = searchFiles(handle, parseQuery("module handler component src ts pkg ".repeat(8)), 50, cancel.signal);
      // After the first slice, deep in the walk or not: either way nothing is answered and nothing stays open.
      setImmediate(() => cancel.abort());
      expect(await search).toEqual([]);
    } finally {
      await handle.close();
    }
    expect(treeDescriptors()).toBe(0);
  });
});
