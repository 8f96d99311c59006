import { spawn, execFileSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, symlinkSync } from "node:fs";
import path from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import type { MockResponseInput } from "../../src/testing/index.js";
import { launch, runTurn, startThread, tempDir } from "../support/turnHarness.js";

/**
 * Found by an attack review: ConfinedFs.readFile opens the final entry first and checks its type and its
 * modes after (regularFile, then allows). For a root server, the open itself passes modes the
 * sandbox's uid could not: another user's private FIFO (0600) is opened for reading, which releases
 * a writer blocked on it (and the server's close then breaks its pipe). The sandbox's own `cat` is
 * refused (Permission denied). Reached through a project's AGENTS.md: read unconfined for
 * thread/start's, resume's and fork's `instructionSources` (LoadedThread.instructionSources, as root,
 * anywhere: a FIFO, /dev/watchdog), and by ConfinedFs at the turn (open before the type check).
 *
 * It failed before the fix.
 */
const isRoot = process.getuid?.() === 0;

describe.skipIf(!isRoot)("the server opens what the sandbox may not", () => {
  it("AGENTS.md symlinked to another user's private FIFO is never opened", { timeout: 60_000 }, async () => {
    const other = tempDir("aas-a2-fifo-other-");
    chmodSync(other, 0o755);
    const fifo = path.join(other, "control");
    execFileSync("mkfifo", ["-m", "600", fifo]);
    chownSync(fifo, 1000, 1000);
    const marker = path.join(other, "writer-released");
    // The other user's program: waits for a reader, then notes that one came.
    const writer = spawn("sh", ["-c", `exec 3>"${fifo}"; : > "${marker}"`], { stdio: "ignore" });
    onTestFinished(() => {
      writer.kill("SIGKILL");
    });
    const cwd = tempDir("aas-a2-fifo-ws-");
    symlinkSync(fifo, path.join(cwd, "AGENTS.md"));
    const probe: MockResponseInput = { items: [{ type: "exec", cmd: `timeout 2 cat ${fifo}; echo "rc=$?"`, callId: "call_cat", yield_time_ms: 5000 }] };
    const { server, mock } = await launch([probe, { items: [{ type: "message", text: "Hi." }] }], { sandbox: "read-only" });
    const threadId = await startThread(server, { cwd });
    await runTurn(server, threadId, "Hello.");
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(existsSync(marker), "the FIFO was opened for reading").toBe(false);
    const input = (mock.requests[1]!.body as { input: Array<{ call_id?: string; type: string; output?: unknown }> }).input;
    expect(JSON.stringify(input.find((item) => item.call_id === "call_cat" && item.type === "function_call_output")?.output)).toMatch(/Permission denied/);
    expect(existsSync(marker)).toBe(false);
  });
});
