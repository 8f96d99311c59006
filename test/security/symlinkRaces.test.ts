import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { commitPatch, planPatch } from "../../src/agent/patch/patchApply.js";
import { parsePatch } from "../../src/agent/patch/patchParser.js";
import { ConfinedFs, type ConfinedFsError } from "../../src/workspace/confinedFs.js";
import { ServerProcess } from "../support/serverProcess.js";
import { startSwapper, type Swapper } from "../support/swapper.js";

/**
 * A directory in the roots keeps turning into a symlink out of them (a swapper process renames it
 * back and forth as fast as it can) while the server's own file code writes and reads through it:
 * the confined filesystem, the patch applier, and `fs/*` over the wire. Nothing may land or be
 * read outside, and the race must have gone both ways (some uses through, some refused).
 * Thousands of rounds each: in the security suite, not `npm test`.
 */

const dirs: string[] = [];
/** A fresh temp directory, by its real path (the server answers with and checks real paths). */
function tempDir(prefix: string): string {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), prefix)));
  dirs.push(dir);
  return dir;
}
let swapper: Swapper | undefined;
afterEach(async () => {
  await swapper?.stop();
  swapper = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Counts each outcome by name. */
function tally(): { count: (what: string) => void; of: (what: string) => number; text: () => string } {
  const outcomes = new Map<string, number>();
  return {
    count: (what) => outcomes.set(what, (outcomes.get(what) ?? 0) + 1),
    of: (what) => outcomes.get(what) ?? 0,
    text: () => JSON.stringify([...outcomes]),
  };
}

describe("a directory swapped for a symlink out, over and over", () => {
  it("ConfinedFs never writes, reads or removes outside", { timeout: 120_000 }, async () => {
    const root = tempDir("aas-cfs-race-");
    const outside = tempDir("aas-cfs-race-out-");
    writeFileSync(path.join(outside, "file"), "OUTSIDE");
    const files = await ConfinedFs.create({ roots: [root], protectedPaths: [] });
    swapper = await startSwapper(root, outside);
    const target = path.join(swapper.swapped, "file");
    const outcomes = tally();
    const deadline = Date.now() + 60_000;
    // Past 2,000 rounds, on until both outcomes were seen (a starved swapper may not have swapped yet), within bounds.
    const raced = () => outcomes.of("written") > 0 && outcomes.of("write EOUTSIDE") > 0;
    for (let i = 0; (i < 2_000 || !raced()) && i < 20_000 && Date.now() < deadline; i++) {
      await files.writeFile(target, `inside ${i}`).then(() => outcomes.count("written"), (error: ConfinedFsError) => outcomes.count(`write ${error.code}`));
      await files.readFile(target).then(
        (bytes) => {
          expect(bytes.toString()).not.toBe("OUTSIDE");
          outcomes.count("read");
        },
        (error: ConfinedFsError) => outcomes.count(`read ${error.code}`),
      );
      if (i % 10 === 0) await files.remove(target, { recursive: false, force: true }).catch((error: ConfinedFsError) => outcomes.count(`remove ${error.code}`));
    }
    await swapper.stop();
    expect(readdirSync(outside)).toEqual(["file"]);
    expect(readFileSync(path.join(outside, "file"), "utf8")).toBe("OUTSIDE");
    expect(outcomes.of("written"), outcomes.text()).toBeGreaterThan(0);
    expect(outcomes.of("write EOUTSIDE"), outcomes.text()).toBeGreaterThan(0);
  });

  it("the patch applier never lands a write outside", { timeout: 120_000 }, async () => {
    const root = tempDir("aas-patch-race-");
    const outside = tempDir("aas-patch-race-out-");
    swapper = await startSwapper(root, outside);
    let written = 0;
    let refused = 0;
    const deadline = Date.now() + 60_000;
    // Past 500 patches, on until both outcomes were seen (a starved swapper may not have swapped yet), within bounds.
    for (let i = 0; (i < 500 || written === 0 || refused === 0) && i < 10_000 && Date.now() < deadline; i++) {
      const planned = await planPatch(parsePatch(`*** Begin Patch\n*** Add File: sw/file${i}.txt\n+line ${i}\n*** End Patch`), root);
      await commitPatch(planned, { roots: [root], protectedPaths: [] }).then(
        () => written++,
        (error: Error) => {
          if (error.message.includes("resolves outside the writable roots")) refused++;
        },
      );
    }
    await swapper.stop();
    expect(readdirSync(outside)).toEqual([]);
    expect(written, `written ${written}, refused ${refused}`).toBeGreaterThan(0);
    expect(refused, `written ${written}, refused ${refused}`).toBeGreaterThan(0);
  });

  it("fs/writeFile and fs/readFile never write or read outside", { timeout: 120_000 }, async () => {
    const workspace = tempDir("aas-fs-ws-");
    const server = ServerProcess.start({ home: tempDir("aas-fs-home-"), cwd: workspace });
    await server.initialize();
    const outside = tempDir("aas-fs-race-out-");
    writeFileSync(path.join(outside, "file"), "OUTSIDE");
    swapper = await startSwapper(workspace, outside);
    const target = path.join(swapper.swapped, "file");
    const outcomes = tally();
    const deadline = Date.now() + 60_000;
    // Past 1,000 rounds, on until both outcomes were seen (a starved swapper may not have swapped yet), within bounds.
    const raced = () => outcomes.of("written") > 0 && outcomes.of("write -32600") > 0;
    for (let i = 0; (i < 1_000 || !raced()) && i < 10_000 && Date.now() < deadline; i++) {
      const written = await server.request("fs/writeFile", { path: target, dataBase64: Buffer.from(`inside ${i}`).toString("base64") });
      outcomes.count(written.error ? `write ${written.error.code}` : "written");
      const read = await server.request("fs/readFile", { path: target });
      if (read.result) expect(Buffer.from(read.result.dataBase64, "base64").toString()).not.toBe("OUTSIDE");
      outcomes.count(read.error ? `read ${read.error.code}` : "read");
    }
    await swapper.stop();
    expect(readdirSync(outside)).toEqual(["file"]);
    expect(readFileSync(path.join(outside, "file"), "utf8")).toBe("OUTSIDE");
    expect(outcomes.of("written"), outcomes.text()).toBeGreaterThan(0);
    expect(outcomes.of("write -32600"), outcomes.text()).toBeGreaterThan(0);
  });
});
