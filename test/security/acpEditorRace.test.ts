import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { startMockModel, type MockResponseInput } from "../../src/testing/index.js";
import { diskEditor, startAcp, startAcpSession, stopAcpAgents } from "../support/acpClient.js";
import { mocks, providerArgs, tempDir } from "../support/turnHarness.js";

afterEach(stopAcpAgents);

/**
 * An ACP editor resolves `fs/*` paths after the server's checks. A sandboxed command of the
 * model's keeps swapping a workspace directory for a symlink into the server's home while the
 * model reads and patches through it: the editor, reading and writing as a real one does (the
 * path as it resolves then), must never be handed the home's file or write into it.
 */
describe("an ACP editor's files while a command swaps a directory for a symlink into the home", () => {
  it("neither reads nor writes the server's home through the editor", { timeout: 120_000 }, async () => {
    const home = tempDir("aas-acp-race-home-");
    mkdirSync(path.join(home, "d"));
    writeFileSync(path.join(home, "d", "file"), "SECRET\n");
    const workspace = tempDir("aas-acp-race-ws-");
    mkdirSync(path.join(workspace, "d"));
    writeFileSync(path.join(workspace, "d", "file"), "inside\n");
    const swap = `while true; do mv d d.in && ln -s ${home}/d d && rm d && mv d.in d; done`;
    const uses: MockResponseInput[] = Array.from({ length: 40 }, (_, k) =>
      k % 2 === 0
        ? { items: [{ type: "function_call", name: "read_file", arguments: { file_path: "d/file" }, callId: `call_read_${k}` }] }
        : { items: [{ type: "apply_patch", callId: `call_patch_${k}`, patch: "*** Begin Patch\n*** Update File: d/file\n@@\n-inside\n+inside\n*** End Patch\n" }] },
    );
    const mock = await startMockModel({ responses: [{ items: [{ type: "exec", cmd: swap, callId: "call_swap", yield_time_ms: 200 }] }, ...uses, { items: [{ type: "message", text: "Done." }] }] });
    mocks.push(mock);
    const editorSaw: string[] = [];
    // An editor that reads and writes each path as it resolves now.
    const { agent, sessionId } = await startAcpSession([...providerArgs(mock.url), "-c", `approval_policy="never"`, "-c", `sandbox_mode="workspace-write"`], { cwd: workspace, home, handlers: diskEditor(editorSaw) });
    const result = await agent.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "Race it." }] });
    expect(result.stopReason).toBe("end_turn");
    expect(mock.requests).toHaveLength(uses.length + 2);
    expect(readFileSync(path.join(home, "d", "file"), "utf8")).toBe("SECRET\n");
    expect(editorSaw.filter((use) => use.includes("SECRET") || use.includes(home))).toEqual([]);
    expect(JSON.stringify(mock.requests.map((request) => request.body.input))).not.toContain("SECRET");
    expect(agent.invalid).toEqual([]);
  });
  it("starts no command while the editor has a read to answer (two sessions)", { timeout: 60_000 }, async () => {
    let answerRead: () => void = () => undefined;
    let readAsked: () => void = () => undefined;
    const asked = new Promise<void>((resolve) => (readAsked = resolve));
    const mock = await startMockModel({
      responses: [
        { items: [{ type: "function_call", name: "read_file", arguments: { file_path: "notes.md" }, callId: "call_read" }] },
        { items: [{ type: "exec", cmd: "touch made.txt", callId: "call_make" }] },
        { items: [{ type: "message", text: "Done." }] },
        { items: [{ type: "message", text: "Done." }] },
      ],
    });
    mocks.push(mock);
    const workspace = tempDir("aas-acp-gate-ws-");
    writeFileSync(path.join(workspace, "notes.md"), "# Notes\nold line\n");
    const agent = startAcp([...providerArgs(mock.url), "-c", `approval_policy="never"`, "-c", `sandbox_mode="workspace-write"`], {
      cwd: workspace,
      handlers: {
        readTextFile: () => {
          readAsked();
          return new Promise((resolve) => (answerRead = () => resolve({ content: "# Notes\nunsaved line\n" })));
        },
      },
    });
    await agent.agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: { fs: { readTextFile: true } } });
    const first = (await agent.agent.request(acp.methods.agent.session.new, { cwd: workspace, mcpServers: [] })).sessionId;
    const second = (await agent.agent.request(acp.methods.agent.session.new, { cwd: workspace, mcpServers: [] })).sessionId;
    const reading = agent.agent.request(acp.methods.agent.session.prompt, { sessionId: first, prompt: [{ type: "text", text: "Read the notes." }] });
    await asked;
    const making = agent.agent.request(acp.methods.agent.session.prompt, { sessionId: second, prompt: [{ type: "text", text: "Make a file." }] });
    // The other session's model asks for a command, which waits for the editor's answer.
    await waitFor(() => mock.requests.length === 2);
    const early = await Promise.race([making.then(() => "finished"), new Promise((resolve) => setTimeout(resolve, 1000, "waiting"))]);
    expect(early).toBe("waiting");
    expect(existsSync(path.join(workspace, "made.txt"))).toBe(false);
    answerRead();
    expect((await reading).stopReason).toBe("end_turn");
    expect((await making).stopReason).toBe("end_turn");
    expect(existsSync(path.join(workspace, "made.txt"))).toBe(true);
    expect(agent.invalid).toEqual([]);
  });

});

/** Waits (polling every 10 ms, at most 10 s) until `ready` holds. */
async function waitFor(ready: () => boolean): Promise<void> {
  for (const started = Date.now(); !ready(); ) {
    if (Date.now() - started > 10_000) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
