import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { MockItem } from "../../src/testing/index.js";
import type { ServerProcess } from "../support/serverProcess.js";
import { startSwapper } from "../support/swapper.js";
import { launch, runTurn, startThread, tempDir } from "../support/turnHarness.js";

/**
 * A model's background job swaps a directory in the workspace for a symlink out of it, over and
 * over, while the model sends patches into that directory: the check and the write must see the
 * same thing, so nothing lands outside, under a policy that asks (declined) and one that never asks.
 */

const PATCHES = 40;

function outputs(requests: readonly { body: Record<string, unknown> }[]): string[] {
  return requests.flatMap((request) =>
    (request.body.input as any[]).filter((item) => item.type === "custom_tool_call_output").map((item) => String(item.output)),
  );
}

describe.each(["on-request", "never"])("apply_patch against a directory swapped for a symlink, under %s", (policy) => {
  it("writes nothing outside the roots, and tells the model each time it refuses", async () => {
    const cwd = tempDir("aas-race-ws-");
    const outside = tempDir("aas-race-out-");
    const calls: MockItem[] = Array.from({ length: PATCHES }, (_, i) => ({
      type: "apply_patch",
      callId: `patch_${i}`,
      patch: `*** Begin Patch\n*** Add File: sw/f${i}\n+from the model\n*** End Patch\n`,
    }));
    const { server, mock } = await launch([{ items: calls }, { items: [{ type: "message", text: "done" }] }], {
      approval: policy,
      sandbox: "workspace-write",
      env: { TMPDIR: "" },
    });
    decline(server);
    const threadId = await startThread(server, { cwd, config: { "sandbox_workspace_write.exclude_slash_tmp": true } });
    const swapper = await startSwapper(cwd, outside);
    try {
      const { completed } = await runTurn(server, threadId, "Race.");
      expect(completed.params.turn.status).toBe("completed");
    } finally {
      await swapper.stop();
    }
    expect(readdirSync(outside), "files written outside the roots").toEqual([]);
    const told = outputs(mock.requests);
    expect(told).toHaveLength(PATCHES);
    for (const text of told) expect(text).toMatch(/^Success\.|outside the writable roots|rejected|no such file or directory/);
  }, 60_000);
});

function decline(server: ServerProcess): void {
  server.onRequest("item/fileChange/requestApproval", () => ({ decision: "decline" }));
}
