import { symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { launch, runTurn, startThread, tempDir } from "../support/turnHarness.js";


const KEY = "sk-home-secret-0123456789abcdefghij";

/**
 * What the server reads itself for a sandboxed turn, from places the model writes: a project's
 * AGENTS.md goes into the model's instructions. The model can make it a symlink to what its sandbox
 * never shows (the server's home), so it is read as the sandbox would read it.
 */
describe("files the server reads for a sandboxed turn from the workspace", () => {
  it.each(["read-only", "workspace-write"])("never reads AGENTS.md through a symlink into the server's home (%s)", async (sandbox) => {
    const home = tempDir("aas-src-home-");
    writeFileSync(path.join(home, "auth.json"), JSON.stringify({ OPENAI_API_KEY: KEY }));
    const cwd = tempDir("aas-src-ws-");
    // What a command of the model's left in an earlier turn: `ln -s <home>/auth.json AGENTS.md`.
    symlinkSync(path.join(home, "auth.json"), path.join(cwd, "AGENTS.md"));
    writeFileSync(path.join(cwd, "NOTES.md"), "notes\n");
    const { server, mock } = await launch([{ items: [{ type: "message", text: "Hi." }] }], { home, sandbox });
    const threadId = await startThread(server, { cwd });
    await runTurn(server, threadId, "Hello.");
    expect(JSON.stringify(mock.requests[0]!.body)).not.toContain(KEY);
  });

  it("never reads AGENTS.md through a symlink to the server's own process files (its environment, its keys)", async () => {
    const cwd = tempDir("aas-src-ws-");
    symlinkSync("/proc/self/environ", path.join(cwd, "AGENTS.md"));
    const { server, mock } = await launch([{ items: [{ type: "message", text: "Hi." }] }], { sandbox: "workspace-write", env: { PROCESS_SECRET: KEY } });
    const threadId = await startThread(server, { cwd });
    await runTurn(server, threadId, "Hello.");
    expect(JSON.stringify(mock.requests[0]!.body)).not.toContain(KEY);
  });

  it("still reads a project's own AGENTS.md, and the user's in the home", async () => {
    const home = tempDir("aas-src-home-");
    writeFileSync(path.join(home, "AGENTS.md"), "Home rule.\n");
    const cwd = tempDir("aas-src-ws-");
    writeFileSync(path.join(cwd, "AGENTS.md"), "Project rule.\n");
    const { server, mock } = await launch([{ items: [{ type: "message", text: "Hi." }] }], { home, sandbox: "workspace-write" });
    const threadId = await startThread(server, { cwd });
    await runTurn(server, threadId, "Hello.");
    const body = JSON.stringify(mock.requests[0]!.body);
    expect(body).toContain("Home rule.");
    expect(body).toContain("Project rule.");
  });
});
