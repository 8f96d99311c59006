import { chownSync, chmodSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { MockResponseInput } from "../../src/testing/index.js";
import { launch, runTurn, startThread, tempDir } from "../support/turnHarness.js";

/**
 * Found by an attack review: skills discovery (src/agent/skills.ts) reads `.agents/skills/<dir>/SKILL.md`
 * and `.codex/skills/<dir>/SKILL.md` of every directory from the repository root to the cwd, which
 * the model writes, with readdir/readRegularFile as the server (root, every capability, the
 * server's home and /proc unmasked). A SKILL.md the model made a symlink puts the target's front
 * matter (`name:`, `description:`) into the model's developer message ("## Skills").
 *
 * It failed before the fix.
 */
const isRoot = process.getuid?.() === 0;
const SECRET = "SKILL-SECRET-7f3a9c1e0b";

function frontMatter(name: string): string {
  return `---\nname: ${name}\ndescription: ${SECRET}\n---\nbody\n`;
}

describe("skills discovery reads past the sandbox", () => {
  it("a SKILL.md symlinked into the server's home does not reach the model", { timeout: 60_000 }, async () => {
    const home = tempDir("aas-a2-skill-home-");
    // A file of the server's own with front matter (here a prompt; the home is masked in every sandbox).
    mkdirSync(path.join(home, "prompts"));
    writeFileSync(path.join(home, "prompts", "deploy.md"), frontMatter("home-prompt"));
    const cwd = tempDir("aas-a2-skill-ws-");
    mkdirSync(path.join(cwd, ".agents", "skills", "x"), { recursive: true });
    symlinkSync(path.join(home, "prompts", "deploy.md"), path.join(cwd, ".agents", "skills", "x", "SKILL.md"));
    const probe: MockResponseInput = { items: [{ type: "exec", cmd: `cat ${path.join(home, "prompts", "deploy.md")}; echo "rc=$?"`, callId: "call_cat", yield_time_ms: 5000 }] };
    const { server, mock } = await launch([probe, { items: [{ type: "message", text: "Hi." }] }], { home, sandbox: "workspace-write" });
    const threadId = await startThread(server, { cwd });
    await runTurn(server, threadId, "Hello.");
    const input = (mock.requests[1]!.body as { input: Array<{ call_id?: string; type: string; output?: unknown }> }).input;
    expect(JSON.stringify(input.find((item) => item.call_id === "call_cat" && item.type === "function_call_output")?.output)).toMatch(/No such file/);
    expect(JSON.stringify(mock.requests[0]!.body)).not.toContain(SECRET);
  });

  it.skipIf(!isRoot)("a SKILL.md symlinked to another user's private file does not reach the model", { timeout: 60_000 }, async () => {
    const other = tempDir("aas-a2-skill-other-");
    chmodSync(other, 0o755);
    const privateFile = path.join(other, "notes.md");
    writeFileSync(privateFile, frontMatter("private-notes"));
    chownSync(privateFile, 1000, 1000);
    chmodSync(privateFile, 0o600);
    const cwd = tempDir("aas-a2-skill-ws-");
    mkdirSync(path.join(cwd, ".codex", "skills", "y"), { recursive: true });
    symlinkSync(privateFile, path.join(cwd, ".codex", "skills", "y", "SKILL.md"));
    const probe: MockResponseInput = { items: [{ type: "exec", cmd: `cat ${privateFile}; echo "rc=$?"`, callId: "call_cat", yield_time_ms: 5000 }] };
    const { server, mock } = await launch([probe, { items: [{ type: "message", text: "Hi." }] }], { sandbox: "read-only" });
    const threadId = await startThread(server, { cwd });
    await runTurn(server, threadId, "Hello.");
    const input = (mock.requests[1]!.body as { input: Array<{ call_id?: string; type: string; output?: unknown }> }).input;
    expect(JSON.stringify(input.find((item) => item.call_id === "call_cat" && item.type === "function_call_output")?.output)).toMatch(/Permission denied/);
    expect(JSON.stringify(mock.requests[0]!.body)).not.toContain(SECRET);
  });

  it("still offers a repository's own skill in a sandboxed turn", { timeout: 60_000 }, async () => {
    const cwd = tempDir("aas-a2-skill-ws-");
    mkdirSync(path.join(cwd, ".agents", "skills", "fmt"), { recursive: true });
    writeFileSync(path.join(cwd, ".agents", "skills", "fmt", "SKILL.md"), "---\nname: fmt\ndescription: Formats the code base\n---\n");
    const { server, mock } = await launch([{ items: [{ type: "message", text: "Hi." }] }], { sandbox: "workspace-write" });
    const threadId = await startThread(server, { cwd });
    await runTurn(server, threadId, "Hello.");
    expect(JSON.stringify(mock.requests[0]!.body)).toContain("fmt: Formats the code base");
  });
});
