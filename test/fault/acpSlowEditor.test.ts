import { readFileSync } from "node:fs";
import * as acp from "@agentclientprotocol/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { startMockModel } from "../../src/testing/index.js";
import { startAcp, stopAcpAgents } from "../support/acpClient.js";
import { mocks, providerArgs, tempDir } from "../support/turnHarness.js";

afterEach(stopAcpAgents);

describe("agent-app-server acp: an editor that stops reading", () => {
  it("holds the turn rather than the updates the editor has not read, and delivers them all once it reads again", { timeout: 60_000 }, async () => {
    const deltas = Array.from({ length: 20_000 }, (_, index) => `${String(index).padStart(6, "0")} ${"x".repeat(243)}`);
    const mock = await startMockModel({ responses: [{ items: [{ type: "message", text: "Warm." }] }, { items: [{ type: "message", deltas }] }] });
    mocks.push(mock);
    const workspace = tempDir("aas-acp-ws-");
    const agent = startAcp(providerArgs(mock.url), { cwd: workspace });
    await agent.agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
    const { sessionId } = await agent.agent.request(acp.methods.agent.session.new, { cwd: workspace, mcpServers: [] });
    await agent.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "Warm up." }] });
    const before = residentMb(agent.child.pid!);
    agent.child.stdout.pause();
    const prompt = agent.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "Say a lot." }] });
    // The model's 5 MB answer is on its way; without the bound the agent takes in all of it (~100 MB more).
    await waitFor(() => mock.requests.length === 2);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const grown = residentMb(agent.child.pid!) - before;
    agent.child.stdout.resume();
    expect((await prompt).stopReason).toBe("end_turn");
    expect(grown).toBeLessThan(25);
    const said = agent.updates
      .filter(({ update }) => update.sessionUpdate === "agent_message_chunk")
      .map(({ update }) => (update as { content: { text: string } }).content.text)
      .join("");
    expect(said).toBe(`Warm.${deltas.join("")}`);
    expect(agent.invalid).toEqual([]);
  });
});

/** The process's resident memory, in MB. */
function residentMb(pid: number): number {
  const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
  return Number(kb) / 1024;
}

/** Waits (polling every 10 ms, at most 10 s) until `ready` holds. */
async function waitFor(ready: () => boolean): Promise<void> {
  for (const started = Date.now(); !ready(); ) {
    if (Date.now() - started > 10_000) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
