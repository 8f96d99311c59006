import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { describe, expect, it, onTestFinished } from "vitest";
import type { MockResponseInput } from "../../src/testing/index.js";
import { launch, runTurn, startThread, tempDir } from "../support/turnHarness.js";

/**
 * Found by an attack review: the sandbox gets a fresh /dev (bwrap --dev): the host's /dev/shm (POSIX shared
 * memory of every process on the machine: databases, browsers, other users' programs) is not in it,
 * nor any of the host's device nodes. The server's own reads for a sandboxed model that go "anywhere
 * the read-only sandbox reads" (a project's AGENTS.md, a patch's plan) are confined to roots ["/"]
 * minus the masked paths (home, hidden, /proc), so they still see the server's /dev.
 *
 * It failed before the fix (the secret reached the model).
 */
const isRoot = process.getuid?.() === 0;

function shmSecret(): { file: string; secret: string } {
  const secret = `SHM-SECRET-${randomUUID()}`;
  const dir = path.join("/dev/shm", `aas-attack2-${randomUUID()}`);
  mkdirSync(dir, { mode: 0o755 });
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, "segment");
  // Readable by its owner (root, as the sandbox's uid) and by everyone: modes keep nothing from the sandbox.
  writeFileSync(file, `${secret}\n`, { mode: 0o644 });
  return { file, secret };
}

describe.skipIf(!isRoot)("the server's /dev is not the sandbox's", () => {
  it.each(["read-only", "workspace-write"])("AGENTS.md symlinked into the host's /dev/shm does not reach the model (%s)", { timeout: 60_000 }, async (sandbox) => {
    const { file, secret } = shmSecret();
    const cwd = tempDir("aas-a2-shm-ws-");
    // What a command of the model's could leave: `ln -s /dev/shm/<...>/segment AGENTS.md` (its own /dev/shm is empty).
    symlinkSync(file, path.join(cwd, "AGENTS.md"));
    const probe: MockResponseInput = { items: [{ type: "exec", cmd: `cat ${file}; echo "rc=$?"`, callId: "call_cat", yield_time_ms: 5000 }] };
    const { server, mock } = await launch([probe, { items: [{ type: "message", text: "Hi." }] }], { sandbox });
    const threadId = await startThread(server, { cwd });
    await runTurn(server, threadId, "Hello.");
    // The sandbox itself cannot read it (evidence that this is a leak, not a shared view).
    const input = (mock.requests[1]!.body as { input: Array<{ call_id?: string; type: string; output?: unknown }> }).input;
    const catOutput = JSON.stringify(input.find((item) => item.call_id === "call_cat" && item.type === "function_call_output")?.output ?? "");
    expect(catOutput).toMatch(/No such file or directory/);
    expect(JSON.stringify(mock.requests[0]!.body)).not.toContain(secret);
  });

  it("a patch's plan is no oracle on the host's /dev/shm (guessed line found vs not found)", { timeout: 60_000 }, async () => {
    const { file, secret } = shmSecret();
    const cwd = tempDir("aas-a2-shm-ws-");
    writeFileSync(path.join(cwd, "NOTES.md"), "notes\n");
    const guess = (line: string, id: string): MockResponseInput => ({
      items: [{ type: "apply_patch", callId: id, patch: `*** Begin Patch\n*** Update File: ${file}\n@@\n-${line}\n+x\n*** End Patch\n` }],
    });
    const { server, mock } = await launch([guess(secret, "call_right"), guess("WRONG-GUESS", "call_wrong"), { items: [{ type: "message", text: "Done." }] }], {
      sandbox: "workspace-write",
    });
    const threadId = await startThread(server, { cwd });
    await runTurn(server, threadId, "Hello.");
    const outputOf = (callId: string): string => {
      const input = (mock.requests.at(-1)!.body as { input: Array<{ call_id?: string; type: string; output?: unknown }> }).input;
      return JSON.stringify(input.find((item) => item.call_id === callId && item.type.endsWith("_output"))?.output ?? "");
    };
    const right = outputOf("call_right");
    const wrong = outputOf("call_wrong");
    // The sandbox sees no such file: both answers must say the same (it does not exist / cannot be read).
    expect(right.replace("call_right", "")).not.toMatch(/rejected|outside/);
    expect(wrong).toMatch(/verification failed/);
  });
});
