import { execFileSync } from "node:child_process";
import { chmodSync, chownSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { launch, runTurn, startThread, tempDir } from "../support/turnHarness.js";

/**
 * ATTACK (attack-2): a root server checks file modes by hand for its sandboxed model
 * (Confinement.allows), but only the mode bits: "ACLs are not read". A POSIX ACL entry that denies
 * uid 0 (`user:0:---`, `other::r--`) keeps the sandbox's root (no capabilities) out, and the
 * hand check lets it through by the other bits. Shown through a project's AGENTS.md, read_file and a
 * patch's plan.
 *
 * FAILS on the code this was written against (4e7bfb3), and STILL FAILS on attack-2: not fixed
 * (Node cannot read ACLs; see the report: do these opens in a process without capabilities).
 */
const isRoot = process.getuid?.() === 0;
const SECRET = "ACL-SECRET-5d2e8b7a41";

/** Sets the access ACL user::rw-, user:0:---, group::r--, mask::r--, other::r-- (no setfacl here: the xattr itself). */
function denyRootByAcl(file: string): boolean {
  const script = [
    "import os, struct, sys",
    "e=[(1,6,0xffffffff),(2,0,0),(4,4,0xffffffff),(0x10,4,0xffffffff),(0x20,4,0xffffffff)]",
    "os.setxattr(sys.argv[1],'system.posix_acl_access',struct.pack('<I',2)+b''.join(struct.pack('<HHI',*x) for x in e))",
  ].join("\n");
  try {
    execFileSync("python3", ["-c", script, file]);
    return true;
  } catch {
    return false;
  }
}

function deniedFile(): string {
  const dir = tempDir("aas-a2-acl-other-");
  chmodSync(dir, 0o755);
  const file = path.join(dir, "secret.md");
  writeFileSync(file, `${SECRET}\n`);
  chownSync(file, 1000, 1000);
  chmodSync(file, 0o644);
  if (!denyRootByAcl(file)) throw new Error("cannot set an ACL here (python3, or a filesystem without ACLs)");
  return file;
}

function outputOf(body: unknown, callId: string): string {
  const input = (body as { input: Array<{ call_id?: string; type: string; output?: unknown }> }).input;
  return JSON.stringify(input.find((item) => item.call_id === callId && item.type.endsWith("_output"))?.output ?? "");
}

describe.skipIf(!isRoot)("attack2: an ACL that denies the sandbox's uid", () => {
  it("AGENTS.md symlinked to a file whose ACL denies uid 0 does not reach the model", { timeout: 60_000 }, async () => {
    const file = deniedFile();
    const cwd = tempDir("aas-a2-acl-ws-");
    symlinkSync(file, path.join(cwd, "AGENTS.md"));
    const probe = { items: [{ type: "exec", cmd: `cat ${file}; echo "rc=$?"`, callId: "call_cat", yield_time_ms: 5000 }] };
    const { server, mock } = await launch([probe, { items: [{ type: "message", text: "Hi." }] }], { sandbox: "read-only" });
    const threadId = await startThread(server, { cwd });
    await runTurn(server, threadId, "Hello.");
    expect(outputOf(mock.requests[1]!.body, "call_cat")).toMatch(/Permission denied/);
    expect(JSON.stringify(mock.requests[0]!.body)).not.toContain(SECRET);
  });

  it("a patch moving a workspace file whose ACL denies uid 0 does not hand its text to the sandbox", { timeout: 60_000 }, async () => {
    const cwd = tempDir("aas-a2-acl-ws-");
    const file = path.join(cwd, "secret.md");
    writeFileSync(file, `${SECRET}\n`);
    chownSync(file, 1000, 1000);
    chmodSync(file, 0o644);
    expect(denyRootByAcl(file)).toBe(true);
    const probe = { items: [{ type: "exec", cmd: `cat secret.md; echo "rc=$?"`, callId: "call_cat", yield_time_ms: 5000 }] };
    const move = { items: [{ type: "apply_patch", callId: "call_move", patch: `*** Begin Patch\n*** Update File: secret.md\n*** Move to: copy.txt\n@@\n+stolen:\n*** End Patch\n` }] };
    const show = { items: [{ type: "exec", cmd: `cat copy.txt; echo "rc=$?"`, callId: "call_copy", yield_time_ms: 5000 }] };
    const { server, mock } = await launch([probe, move, show, { items: [{ type: "message", text: "Done." }] }], { sandbox: "workspace-write" });
    const threadId = await startThread(server, { cwd });
    await runTurn(server, threadId, "Hello.");
    const last = mock.requests.at(-1)!.body;
    expect(outputOf(last, "call_cat")).toMatch(/Permission denied/);
    expect(outputOf(last, "call_copy")).not.toContain(SECRET);
  });

  it("a patch's plan is no oracle on a file whose ACL denies uid 0", { timeout: 60_000 }, async () => {
    const file = deniedFile();
    const cwd = tempDir("aas-a2-acl-ws-");
    const guess = (line: string, id: string) => ({
      items: [{ type: "apply_patch", callId: id, patch: `*** Begin Patch\n*** Update File: ${file}\n@@\n-${line}\n+x\n*** End Patch\n` }],
    });
    const { server, mock } = await launch([guess(SECRET, "call_right"), guess("WRONG", "call_wrong"), { items: [{ type: "message", text: "Done." }] }], { sandbox: "read-only" });
    const threadId = await startThread(server, { cwd });
    await runTurn(server, threadId, "Hello.");
    const last = mock.requests.at(-1)!.body;
    // The sandbox may not read it: the plan must say so for either guess, not tell them apart.
    expect(outputOf(last, "call_right")).toMatch(/permission denied/i);
    expect(outputOf(last, "call_wrong")).toMatch(/permission denied/i);
  });
});
