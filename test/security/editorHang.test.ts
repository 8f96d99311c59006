import { writeFileSync } from "node:fs";
import path from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { startMockModel } from "../../src/testing/index.js";
import { startAcp, stopAcpAgents } from "../support/acpClient.js";
import { mocks, providerArgs, tempDir } from "../support/turnHarness.js";

afterEach(stopAcpAgents);

/** `promise`'s value, or "still pending" after `ms`. */
function within<T>(promise: Promise<T>, ms: number): Promise<T | "still pending"> {
  return Promise.race([promise, new Promise<"still pending">((resolve) => setTimeout(() => resolve("still pending"), ms).unref())]);
}

/**
 * The command gate is process-wide and an editor call holds it: one `fs/read_text_file` the editor
 * never answers (a hung editor, one waiting on its user, a slow disk) must neither keep the turn
 * that made it from ending when cancelled nor leave every session's commands waiting for ever.
 */
describe("an editor call that is never answered", () => {
  it("neither wedges the turn that made it past a cancel nor every other session's commands", { timeout: 60_000 }, async () => {
    const home = tempDir("aas-attack-hang-home-");
    const workspace = tempDir("aas-attack-hang-ws-");
    writeFileSync(path.join(workspace, "notes.md"), "notes\n");
    const mock = await startMockModel({
      responses: [
        { items: [{ type: "function_call", name: "read_file", arguments: { file_path: "notes.md" }, callId: "call_read" }] },
        { items: [{ type: "exec", cmd: "echo other-session-ran", callId: "call_echo", yield_time_ms: 5000 }] },
        { items: [{ type: "message", text: "Done." }] },
      ],
    });
    mocks.push(mock);
    let asked!: () => void;
    const readAsked = new Promise<void>((resolve) => (asked = resolve));
    const agent = startAcp([...providerArgs(mock.url), "-c", `approval_policy="never"`, "-c", `sandbox_mode="workspace-write"`], {
      cwd: workspace,
      home,
      handlers: {
        // The editor never answers this read.
        readTextFile: () => {
          asked();
          return new Promise<acp.ReadTextFileResponse>(() => undefined);
        },
      },
    });
    await agent.agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: { fs: { readTextFile: true } } });
    const first = (await agent.agent.request(acp.methods.agent.session.new, { cwd: workspace, mcpServers: [] })).sessionId;
    const second = (await agent.agent.request(acp.methods.agent.session.new, { cwd: workspace, mcpServers: [] })).sessionId;
    const hung = agent.agent.request(acp.methods.agent.session.prompt, { sessionId: first, prompt: [{ type: "text", text: "Read notes.md." }] });
    await readAsked;
    await agent.agent.notify(acp.methods.agent.session.cancel, { sessionId: first });
    const cancelled = await within(hung.then((result) => result.stopReason), 10_000);
    const other = await within(
      agent.agent.request(acp.methods.agent.session.prompt, { sessionId: second, prompt: [{ type: "text", text: "Echo." }] }).then((result) => result.stopReason),
      15_000,
    );
    expect({ cancelled, other }).toEqual({ cancelled: "cancelled", other: "end_turn" });
  });
});
