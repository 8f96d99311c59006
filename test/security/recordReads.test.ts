import { chmodSync, chownSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { MockResponseInput } from "../../src/testing/index.js";
import { recordTurn } from "../support/recordTurn.js";
import { tempDir } from "../support/turnHarness.js";

/**
 * Found by an attack review: `record` keeps, in its scenario, the workspace files a session's commands
 * "read" (their command actions: `cat FILE`) and writes it to `--out`, often inside the workspace
 * (outputFiles.ts says so). It reads them as the server (src/record/workspaceFiles.ts readInside:
 * realpath inside the workspace, then readFileSync as root): no file modes, no hidden paths. A
 * command the sandbox refused (`cat private.txt`: Permission denied; `cat .home/notes`: masked)
 * still names the file, and its text lands in a file of the workspace the model reads next session.
 *
 * It failed before the fix.
 */
const isRoot = process.getuid?.() === 0;
const SECRET = "RECORD-SECRET-31c9d0aa";

/** Records one turn under workspace-write; also what the model saw last. */
async function recordSandboxedTurn(responses: MockResponseInput[], workspace: string, out: string, home?: string) {
  const { code, stderr, mock } = await recordTurn(responses, workspace, out, { sandbox: "workspace-write", home, env: { OPENAI_API_KEY: "" } });
  return { code, stderr, outputs: JSON.stringify(mock.requests.at(-1)?.body ?? "") };
}

describe("record keeps only what the sandbox could read", () => {
  it.skipIf(!isRoot)("another user's private file in the workspace, which the sandbox's cat was refused, stays out of the scenario", async () => {
    const workspace = tempDir("aas-a2-rec-ws-");
    const file = path.join(workspace, "private.txt");
    writeFileSync(file, `${SECRET}\n`);
    chownSync(file, 1000, 1000);
    chmodSync(file, 0o600);
    const responses: MockResponseInput[] = [
      { items: [{ type: "exec", cmd: "cat private.txt", callId: "c1", yield_time_ms: 5000 }] },
      { items: [{ type: "message", text: "Done." }] },
    ];
    const out = path.join(workspace, "golden", "leak");
    const { code, stderr, outputs } = await recordSandboxedTurn(responses, workspace, out);
    expect(code, stderr).toBe(0);
    expect(outputs).toContain("Permission denied");
    expect(readFileSync(`${out}.scenario.json`, "utf8")).not.toContain(SECRET);
  }, 120_000);

  it("the server's home inside the workspace (a workspace of ~) stays out of the scenario", async () => {
    const workspace = tempDir("aas-a2-rec-ws-");
    const home = path.join(workspace, ".aas-home");
    mkdirSync(home);
    writeFileSync(path.join(home, "notes.txt"), `${SECRET}\n`);
    const responses: MockResponseInput[] = [
      { items: [{ type: "exec", cmd: "cat .aas-home/notes.txt", callId: "c1", yield_time_ms: 5000 }] },
      { items: [{ type: "message", text: "Done." }] },
    ];
    const out = path.join(workspace, "golden", "leak");
    const { code, stderr, outputs } = await recordSandboxedTurn(responses, workspace, out, home);
    expect(code, stderr).toBe(0);
    expect(outputs).toContain("No such file");
    expect(readFileSync(`${out}.scenario.json`, "utf8")).not.toContain(SECRET);
  }, 120_000);
});
