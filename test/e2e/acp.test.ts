import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { startMockModel, type MockResponseInput } from "../../src/testing/index.js";
import { startAcp, stopAcpAgents, type AcpAgent, type EditorHandlers } from "../support/acpClient.js";
import { mocks, providerArgs, tempDir } from "../support/turnHarness.js";

afterEach(stopAcpAgents);

/** A mock model and an agent pointed at it, initialized as Zed initializes. */
async function editorSession(responses: MockResponseInput[], options: { args?: string[]; handlers?: EditorHandlers; home?: string } = {}) {
  const mock = await startMockModel({ responses });
  mocks.push(mock);
  const workspace = tempDir("aas-acp-ws-");
  writeFileSync(path.join(workspace, "notes.md"), "# Notes\nold line\n");
  const agent = startAcp([...providerArgs(mock.url), ...(options.args ?? [])], { cwd: workspace, home: options.home, handlers: options.handlers });
  const init = await agent.agent.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
  });
  return { mock, agent, workspace, init };
}

function updatesOf(agent: AcpAgent, kind: acp.SessionUpdate["sessionUpdate"]) {
  return agent.updates.map((entry) => entry.update).filter((update) => update.sessionUpdate === kind);
}

function textOf(agent: AcpAgent, kind: "agent_message_chunk" | "agent_thought_chunk" | "user_message_chunk"): string {
  return updatesOf(agent, kind)
    .map((update) => ((update as { content: { text?: string } }).content.text ?? ""))
    .join("");
}

describe("agent-app-server acp", () => {
  it("initializes, opens a session and streams a prompt's answer and thoughts", async () => {
    const { agent, workspace, init } = await editorSession([
      { items: [{ type: "reasoning", summary: ["Thinking it over"] }, { type: "message", deltas: ["Hello ", "from ", "ACP."] }] },
    ]);
    expect(init.protocolVersion).toBe(acp.PROTOCOL_VERSION);
    expect(init.agentCapabilities).toMatchObject({ loadSession: true, promptCapabilities: { image: true, embeddedContext: true }, mcpCapabilities: { http: true } });
    const session = await agent.agent.request(acp.methods.agent.session.new, { cwd: workspace, mcpServers: [] });
    expect(session.modes?.availableModes.map((mode) => mode.id)).toEqual(["read-only", "auto", "full-access"]);
    const result = await agent.agent.request(acp.methods.agent.session.prompt, { sessionId: session.sessionId, prompt: [{ type: "text", text: "Say hello." }] });
    expect(result.stopReason).toBe("end_turn");
    expect(textOf(agent, "agent_message_chunk")).toBe("Hello from ACP.");
    expect(textOf(agent, "agent_thought_chunk")).toBe("Thinking it over");
    expect(updatesOf(agent, "available_commands_update")).toHaveLength(1);
    expect(agent.invalid).toEqual([]);
    expect(await agent.close()).toBe(0);
  });
});
