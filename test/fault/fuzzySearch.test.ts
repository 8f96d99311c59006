import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_QUERY_WORDS } from "../../src/workspace/fuzzyQuery.js";
import { ServerProcess } from "../support/serverProcess.js";

/**
 * `fuzzyFileSearch` under pathological queries: the longest allowed, made of characters every path
 * is full of, over a few thousand paths longer than the query. Matching used to be quadratic per
 * path (query × path dynamic programming) and held the event loop; now it is bounded per path,
 * shares the event loop, and stops when its connection closes.
 */

/** A run of `a`s: every character matches every character of the queries below. */
const A_RUN = "a".repeat(40);
/** Levels of single directories every path goes through: ~250 characters before the branching. */
const TRUNK_LEVELS = 6;
const BRANCHES = 10;
const FILES_PER_LEAF = 30;

/** Long queries (Codex answers 300 characters) that match every file: one atom, 150 one-letter atoms, 37 short atoms, an atom ending in the extension. */
const QUERY_CHARS = 300;
const QUERIES = ["a".repeat(QUERY_CHARS), "a ".repeat(QUERY_CHARS / 2), "aaaaaaa ".repeat(QUERY_CHARS / 8), `${"a".repeat(QUERY_CHARS - 4)}.txt`];

let workspace: string;
let home: string;

beforeAll(() => {
  workspace = realpathSync(mkdtempSync(path.join(os.tmpdir(), "aas-fuzzy-ws-")));
  home = mkdtempSync(path.join(os.tmpdir(), "aas-fuzzy-home-"));
  // BRANCHES × BRANCHES leaves of FILES_PER_LEAF files (3,000), each path ~420 characters.
  const trunk = path.join(workspace, ...Array.from({ length: TRUNK_LEVELS }, (_, level) => `${A_RUN}${level}`));
  for (let outer = 0; outer < BRANCHES; outer++) {
    for (let inner = 0; inner < BRANCHES; inner++) {
      const leaf = path.join(trunk, `${A_RUN}${outer}`, `${A_RUN}${inner}`);
      mkdirSync(leaf, { recursive: true });
      for (let file = 0; file < FILES_PER_LEAF; file++) writeFileSync(path.join(leaf, `${A_RUN}${file}.txt`), "");
    }
  }
});

afterAll(() => {
  for (const dir of [workspace, home]) rmSync(dir, { recursive: true, force: true });
});

async function serve(): Promise<ServerProcess> {
  const server = ServerProcess.start({ home, cwd: workspace });
  await server.initialize();
  return server;
}

function search(id: string, query: string): object {
  return { id, method: "fuzzyFileSearch", params: { query, roots: [workspace] } };
}

/** Position of the response to `id` among the messages received. */
function responseIndex(server: ServerProcess, id: string): number {
  return server.messages.findIndex((message) => message.id === id && !("method" in message));
}

describe("fuzzyFileSearch under pathological queries", () => {
  it("answers a cheap request sent after a max-length search before the search", async () => {
    const server = await serve();
    // One write, so both requests arrive together and the search is dispatched first.
    server.sendRaw(`${JSON.stringify(search("search", QUERIES[0]!))}\n${JSON.stringify({ id: "list", method: "thread/list", params: {} })}\n`);
    const [found, listed] = await Promise.all([
      server.waitFor((m) => m.id === "search", "the search"),
      server.waitFor((m) => m.id === "list", "thread/list"),
    ]);
    expect(listed.result.data).toEqual([]);
    expect(found.result.files).toHaveLength(50);
    expect(found.result.files[0].indices).toHaveLength(QUERY_CHARS);
    expect(responseIndex(server, "list")).toBeLessThan(responseIndex(server, "search"));
  });

  it("answers a query of any length, as Codex does: one longer than every path matches nothing, at once", async () => {
    const server = await serve();
    const huge = await server.request("fuzzyFileSearch", { query: "a".repeat(200_000), roots: [workspace] });
    expect(huge.result).toEqual({ files: [] });
    const emoji = await server.request("fuzzyFileSearch", { query: "😀".repeat(QUERY_CHARS), roots: [workspace] });
    expect(emoji.result).toEqual({ files: [] });
    // Many short atoms cost their count per path, and still answer.
    const atoms = await server.request("fuzzyFileSearch", { query: "a ".repeat(1_000), roots: [workspace] });
    expect(atoms.result.files).toHaveLength(50);
  });

  it("serves other requests while it reads a query of millions of words, and refuses too many distinct ones", async () => {
    const server = await serve();
    // 8 MB of one repeated word: parsed in slices and matched once, not four million times per path.
    const repeated = search("repeated", "a ".repeat(4_000_000));
    server.sendRaw(`${JSON.stringify(repeated)}\n${JSON.stringify({ id: "loaded", method: "thread/loaded/list", params: {} })}\n`);
    const [found] = await Promise.all([
      server.waitFor((m) => m.id === "repeated", "the repeated-word search"),
      server.waitFor((m) => m.id === "loaded", "thread/loaded/list"),
    ]);
    expect(found.result.files).toHaveLength(50);
    expect(responseIndex(server, "loaded")).toBeLessThan(responseIndex(server, "repeated"));
    const distinct = Array.from({ length: MAX_QUERY_WORDS + 1 }, (_, i) => `a${i}`).join(" ");
    const refused = await server.request("fuzzyFileSearch", { query: distinct, roots: [workspace] });
    expect(refused.error).toMatchObject({ code: -32602, message: expect.stringContaining(`more than ${MAX_QUERY_WORDS} distinct words`) });
  });

  it("finishes four max-length searches running at once", async () => {
    const server = await serve();
    server.sendRaw(QUERIES.map((query, i) => `${JSON.stringify(search(`search-${i}`, query))}\n`).join(""));
    const answers = await Promise.all(QUERIES.map((_, i) => server.waitFor((m) => m.id === `search-${i}`, `search ${i}`)));
    for (const answer of answers) expect(answer.result.files).toHaveLength(50);
  });

  it("stops a search when its connection closes", async () => {
    const server = await serve();
    server.send(search("search", QUERIES[2]!));
    const exited = server.closeStdin();
    // Cancelled long before it could walk the tree: the answer, written before the exit, has no files.
    expect((await server.waitFor((m) => m.id === "search", "the cancelled search")).result).toEqual({ files: [] });
    expect((await exited).code).toBe(0);
  });
});
