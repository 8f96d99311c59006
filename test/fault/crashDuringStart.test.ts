import { mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ServerProcess } from "../support/serverProcess.js";
import { tempDir } from "../support/turnHarness.js";

/** The thread files under `home/sessions` (not those still being created), with their sizes. */
function threadFiles(home: string): Array<{ file: string; size: number }> {
  const sessions = path.join(home, "sessions");
  let entries;
  try {
    entries = readdirSync(sessions, { recursive: true, withFileTypes: true });
  } catch {
    return [];
  }
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith(".jsonl") && !entry.parentPath.includes(".incoming"))
    .map((entry) => ({ file: path.join(entry.parentPath, entry.name), size: statSync(path.join(entry.parentPath, entry.name)).size }));
}

describe("kill -9 during thread/start", () => {
  it("never leaves an empty or unlisted thread file; a restart clears half-created ones", async () => {
    const home = tempDir("aas-crash-home-");
    for (let round = 0; round < 8; round++) {
      const server = ServerProcess.start({ home });
      await server.initialize();
      // A burst of starts, killed while some are surely mid-way (after the first answer, before the last).
      for (let index = 0; index < 20; index++) server.send({ id: 9000 + index, method: "thread/start", params: {} });
      await server.waitFor((m) => m.id !== undefined && m.id >= 9000);
      await server.signal("SIGKILL");
    }
    // A leftover of a crash in the middle of a creation, as the kill may or may not have made one.
    mkdirSync(path.join(home, "sessions", ".incoming"), { recursive: true });
    writeFileSync(path.join(home, "sessions", ".incoming", "019a0000-0000-7000-8000-000000000000.jsonl"), "");

    const server = ServerProcess.start({ home });
    await server.initialize();
    const files = threadFiles(home);
    expect(files.filter((entry) => entry.size === 0)).toEqual([]);
    const listed = new Set<string>();
    for (let cursor: string | null = null, first = true; first || cursor; first = false) {
      const page: any = (await server.request("thread/list", { limit: 100, ...(cursor ? { cursor } : {}) })).result;
      for (const thread of page.data) listed.add(thread.path);
      cursor = page.nextCursor;
    }
    expect(files.map((entry) => entry.file).filter((file) => !listed.has(file))).toEqual([]);
    expect(readdirSync(path.join(home, "sessions")).includes(".incoming")).toBe(false);
    await server.closeStdin();
  });
});
