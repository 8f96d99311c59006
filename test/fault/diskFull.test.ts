import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ServerProcess } from "../support/serverProcess.js";
import { launch, startThread, tempDir } from "../support/turnHarness.js";

/** Mounts a 2 MiB tmpfs (root only); null, said loudly, where mounting is not allowed. */
function smallDisk(): string | null {
  const dir = mkdtempSync(path.join(os.tmpdir(), "aas-tmpfs-"));
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=2m", "tmpfs", dir], { stdio: "pipe" });
    mounted.push(dir);
    return dir;
  } catch (error) {
    console.warn(`SKIPPED: cannot mount a tmpfs here (${(error as Error).message.split("\n")[0]}); the disk-full test needs root`);
    rmSync(dir, { recursive: true, force: true });
    return null;
  }
}
const mounted: string[] = [];
afterEach(() => {
  for (const dir of mounted.splice(0)) {
    execFileSync("umount", ["-l", dir]);
    rmSync(dir, { recursive: true, force: true });
  }
});

/** Fills the file system at `dir` with one file, until ENOSPC. */
function fill(dir: string): string {
  const filler = path.join(dir, "filler");
  try {
    execFileSync("dd", ["if=/dev/zero", `of=${filler}`, "bs=64k"], { stdio: "pipe" });
  } catch {
    // dd stops with "No space left on device": that is the point.
  }
  return filler;
}

const say = (text: string) => ({ items: [{ type: "message" as const, text }] });

/** Every line of every thread file under `home` parses: nothing half-written sits before later records. */
function threadFilesParse(home: string): void {
  for (const file of readdirSync(path.join(home, "sessions"), { recursive: true, withFileTypes: true })) {
    if (!file.isFile() || !file.name.endsWith(".jsonl")) continue;
    const text = readFileSync(path.join(file.parentPath, file.name), "utf8");
    for (const line of text.split("\n").filter(Boolean)) expect(() => JSON.parse(line), `${file.name}: ${line.slice(0, 80)}`).not.toThrow();
  }
}

describe("disk faults in the home", () => {
  it("a full disk: errors name the file and the cause, every item still completes, and the thread works again once space returns", async () => {
    const home = smallDisk();
    if (home === null) return;
    const replies = Array.from({ length: 30 }, (_, index) => say(`reply ${index} ${"x".repeat(200)}`));
    const { server } = await launch(replies, { home });
    const threadId = await startThread(server, { cwd: tempDir("aas-ws-") });
    const turn = async (text: string) => {
      const response = await server.request("turn/start", { threadId, input: [{ type: "text", text }] });
      if (response.error) return { error: response.error };
      const completed = await server.waitFor((m) => m.method === "turn/completed" && m.params.turn.id === response.result.turn.id);
      return { turn: completed.params.turn };
    };
    expect((await turn("first")).turn?.status).toBe("completed");

    const filler = fill(home);
    // The thread file's last page may take a few more lines: go on until a write fails.
    let failed: { error?: any; turn?: any } | undefined;
    for (let attempt = 0; attempt < 20 && !failed; attempt++) {
      const outcome = await turn(`while full ${attempt}`);
      if (outcome.error || outcome.turn?.status === "failed") failed = outcome;
    }
    const message = failed?.error?.message ?? failed?.turn?.error?.message;
    expect(message).toMatch(/could not write .*rollout-.*\.jsonl: no space left on the device \(ENOSPC\); free some space, then try again/);
    const started = await server.request("thread/start", {});
    expect(started.error).toMatchObject({ code: -32603, message: expect.stringMatching(/^thread\/start failed: could not \w+ .*: no space left on the device \(ENOSPC\)/) });

    rmSync(filler);
    expect((await turn("space is back")).turn?.status).toBe("completed");
    expect((await server.request("thread/start", {})).error).toBeUndefined();
    await server.closeStdin();
    threadFilesParse(home);
    // Nothing half-written: a restart lists and reads the thread.
    const again = ServerProcess.start({ home });
    await again.initialize();
    expect((await again.request("thread/list", {})).result.data.map((thread: any) => thread.id)).toContain(threadId);
    expect((await again.request("thread/read", { threadId, includeTurns: true })).result.thread.turns.at(-1).status).toBe("completed");
    await again.closeStdin();
  });

  it("a read-only home: each request says which file and why; a stored thread is never reported as not found", async () => {
    const home = smallDisk();
    if (home === null) return;
    const { server } = await launch([say("one")], { home });
    const threadId = await startThread(server, { cwd: tempDir("aas-ws-") });
    await server.closeStdin();
    execFileSync("mount", ["-o", "remount,ro", home]);

    const { server: readOnly } = await launch([say("two")], { home });
    expect((await readOnly.request("thread/list", {})).result.data.map((thread: any) => thread.id)).toEqual([threadId]);
    expect((await readOnly.request("thread/read", { threadId })).result.thread.id).toBe(threadId);
    expect((await readOnly.request("thread/start", {})).error.message).toMatch(/^thread\/start failed: could not \w+ .*: the file system is read-only \(EROFS\); the home must be on a writable file system$/);
    const resumed = await readOnly.request("thread/resume", { threadId });
    expect(resumed.error.message).toMatch(/^thread\/resume failed: could not open .*rollout-.*\.jsonl: the file system is read-only \(EROFS\)/);
    const turn = await readOnly.request("turn/start", { threadId, input: [{ type: "text", text: "hi" }] });
    expect(turn.error.message).not.toMatch(/not found/);
    expect(turn.error.message).toMatch(/EROFS/);
    await readOnly.closeStdin();
    execFileSync("mount", ["-o", "remount,rw", home]);
  });
});
