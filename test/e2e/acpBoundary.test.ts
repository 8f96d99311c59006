import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { startMockModel, type MockResponseInput } from "../../src/testing/index.js";
import { startAcp, stopAcpAgents, type EditorHandlers } from "../support/acpClient.js";
import { mocks, providerArgs, tempDir } from "../support/turnHarness.js";

afterEach(stopAcpAgents);

/** A mock model and an agent pointed at it, run from `workspace` as an editor runs it from the project. */
async function editorSession(responses: MockResponseInput[], options: { args?: string[]; handlers?: EditorHandlers; workspace?: string } = {}) {
  const mock = await startMockModel({ responses });
  mocks.push(mock);
  const workspace = options.workspace ?? tempDir("aas-acp-ws-");
  const agent = startAcp([...providerArgs(mock.url), ...(options.args ?? [])], { cwd: workspace, handlers: options.handlers });
  await agent.agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
  return { mock, agent, workspace };
}

describe("agent-app-server acp: what the model reaches", () => {
  it("keeps read-only the programs an editor's MCP servers run by bare name: a script beside the server, a command found on its PATH", async () => {
    const workspace = tempDir("aas-acp-ws-");
    // Neither is a working MCP server (each start fails): what counts is that the server would run them, outside any sandbox.
    writeFileSync(path.join(workspace, "server.js"), "process.exit(1);\n");
    mkdirSync(path.join(workspace, "bin"));
    writeFileSync(path.join(workspace, "bin", "mcp-tool"), "#!/bin/sh\nexit 1\n");
    chmodSync(path.join(workspace, "bin", "mcp-tool"), 0o755);
    const { agent } = await editorSession(
      [
        { items: [{ type: "exec", cmd: "echo 'evil()' >> server.js; echo evil >> bin/mcp-tool; echo evil > bin/other-tool", callId: "call_write" }] },
        { items: [{ type: "message", text: "Done." }] },
      ],
      { workspace, args: ["-c", `approval_policy="never"`, "-c", `sandbox_mode="workspace-write"`] },
    );
    const { sessionId } = await agent.agent.request(acp.methods.agent.session.new, {
      cwd: workspace,
      mcpServers: [
        { name: "script", command: "node", args: ["server.js"], env: [] },
        { name: "tool", command: "mcp-tool", args: [], env: [{ name: "PATH", value: `bin:${process.env.PATH}` }] },
      ],
    });
    const result = await agent.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "Change them." }] });
    expect(result.stopReason).toBe("end_turn");
    expect(readFileSync(path.join(workspace, "server.js"), "utf8")).toBe("process.exit(1);\n");
    expect(readFileSync(path.join(workspace, "bin", "mcp-tool"), "utf8")).toBe("#!/bin/sh\nexit 1\n");
    expect(agent.invalid).toEqual([]);
  });
});

describe("agent-app-server acp: order", () => {
  it("asks permission only after the editor has the tool call it asks about, however much was said before it", async () => {
    const seenWhenAsked: boolean[] = [];
    let agentRef: { updates: Array<{ update: acp.SessionUpdate }> } | undefined;
    const { agent, workspace } = await editorSession(
      [
        {
          items: [
            { type: "message", deltas: Array.from({ length: 2000 }, (_, index) => `word ${index} `) },
            { type: "exec", cmd: "touch made.txt", callId: "call_asked", sandbox_permissions: "require_escalated", justification: "Make it" },
          ],
        },
        { items: [{ type: "message", text: "Done." }] },
      ],
      {
        args: ["-c", `approval_policy="on-request"`, "-c", `sandbox_mode="read-only"`],
        handlers: {
          permission: (request) => {
            seenWhenAsked.push(agentRef!.updates.some(({ update }) => update.sessionUpdate === "tool_call" && update.toolCallId === request.toolCall.toolCallId));
            return { outcome: { outcome: "selected", optionId: "approved" } };
          },
        },
      },
    );
    agentRef = agent;
    const { sessionId } = await agent.agent.request(acp.methods.agent.session.new, { cwd: workspace, mcpServers: [] });
    const result = await agent.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "Talk, then make it." }] });
    expect(result.stopReason).toBe("end_turn");
    expect(seenWhenAsked).toEqual([true]);
    expect(agent.invalid).toEqual([]);
  });
});
