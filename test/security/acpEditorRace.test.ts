import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { startMockModel, type MockResponseInput } from "../../src/testing/index.js";
import { startAcp, stopAcpAgents } from "../support/acpClient.js";
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
    const agent = startAcp([...providerArgs(mock.url), "-c", `approval_policy="never"`, "-c", `sandbox_mode="workspace-write"`], {
      cwd: workspace,
      home,
      handlers: {
        // As an editor with no unsaved buffer does: the file as the path resolves now.
        readTextFile: (request) => {
          const content = readFileSync(request.path, "utf8");
          editorSaw.push(`read ${content.trim()}`);
          return { content };
        },
        writeTextFile: (request) => {
          writeFileSync(request.path, request.content);
          editorSaw.push(`write ${request.path}`);
          return {};
        },
      },
    });
    await agent.agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } } });
    const { sessionId } = await agent.agent.request(acp.methods.agent.session.new, { cwd: workspace, mcpServers: [] });
    const result = await agent.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "Race it." }] });
    expect(result.stopReason).toBe("end_turn");
    expect(mock.requests).toHaveLength(uses.length + 2);
    expect(readFileSync(path.join(home, "d", "file"), "utf8")).toBe("SECRET\n");
    expect(editorSaw.filter((use) => use.includes("SECRET") || use.includes(home))).toEqual([]);
    expect(JSON.stringify(mock.requests.map((request) => request.body.input))).not.toContain("SECRET");
    expect(agent.invalid).toEqual([]);
  });
});
