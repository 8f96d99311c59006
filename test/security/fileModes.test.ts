import { chmodSync, chownSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { startMockModel, type MockResponseInput } from "../../src/testing/index.js";
import { startAcpSession, stopAcpAgents } from "../support/acpClient.js";
import { mocks, providerArgs, tempDir } from "../support/turnHarness.js";

afterEach(stopAcpAgents);

const isRoot = process.getuid?.() === 0;

/**
 * A root server's sandboxed commands keep uid 0 but no capability (a user namespace of their own,
 * --cap-drop ALL): file modes bind them. The server's own reads and writes for the model (read_file,
 * a patch's plan and its writes) and the editor's (ACP's fs, the editor running as the same user)
 * would pass them (CAP_DAC_OVERRIDE): another user's private file in /tmp (a Kerberos ticket cache,
 * say) must not reach the model through read_file, or through a patch moving it into the workspace,
 * and another user's file must not be patched.
 */
describe.skipIf(!isRoot)("a root server reads for the model only what its sandbox may read", () => {
  const variants = [
    { name: "read_file through the editor", editor: true, copy: false },
    { name: "read_file from the disk (no editor)", editor: false, copy: false },
    { name: "a patch moving it into a copy the sandbox reads", editor: false, copy: true },
  ];
  it.each(variants)("does not show another user's private file in /tmp: $name", { timeout: 60_000 }, async (variant) => {
    const home = tempDir("aas-attack-dac-home-");
    const workspace = tempDir("aas-attack-dac-ws-");
    // Another user's private file in the shared /tmp (a writable root under workspace-write).
    const other = tempDir("aas-attack-dac-other-");
    chmodSync(other, 0o755);
    const ticket = path.join(other, "krb5cc_1000");
    writeFileSync(ticket, "SECRET-TICKET-OF-UID-1000\n");
    chownSync(ticket, 1000, 1000);
    chmodSync(ticket, 0o600);
    const show: MockResponseInput = { items: [{ type: "exec", cmd: `cat ${ticket}; echo "rc=$?"`, callId: "call_cat", yield_time_ms: 5000 }] };
    const steal: MockResponseInput[] = variant.copy
      ? [
          { items: [{ type: "apply_patch", callId: "call_patch", patch: `*** Begin Patch\n*** Update File: ${ticket}\n*** Move to: ${workspace}/copy.txt\n@@\n+stolen:\n*** End Patch\n` }] },
          { items: [{ type: "exec", cmd: "cat copy.txt", callId: "call_copy", yield_time_ms: 5000 }] },
        ]
      : [{ items: [{ type: "function_call", name: "read_file", arguments: { file_path: ticket }, callId: "call_read" }] }];
    // Without the editor: a command left running (a background terminal) keeps read_file on the disk.
    const background: MockResponseInput[] = variant.editor ? [] : [{ items: [{ type: "exec", cmd: "sleep 30", callId: "call_sleep", yield_time_ms: 100 }] }];
    const mock = await startMockModel({ responses: [...background, show, ...steal, { items: [{ type: "message", text: "Done." }] }] });
    mocks.push(mock);
    const editorReads: string[] = [];
    const { agent, sessionId } = await startAcpSession([...providerArgs(mock.url), "-c", `approval_policy="on-request"`, "-c", `sandbox_mode="workspace-write"`], {
      cwd: workspace,
      home,
      handlers: {
        readTextFile: (request) => {
          editorReads.push(request.path);
          return { content: readFileSync(request.path, "utf8") };
        },
        writeTextFile: (request) => (writeFileSync(request.path, request.content), {}),
        // The user approves what is asked (moving a file of /tmp into the workspace).
        permission: (request) => ({ outcome: { outcome: "selected", optionId: request.options[0]!.optionId } }),
      },
    });
    await agent.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "Read it." }] });
    const outputs = (mock.requests.at(-1)!.body.input as Array<{ type: string; call_id?: string; output?: string }>).filter((item) => item.type === "function_call_output" || item.type === "custom_tool_call_output");
    // The sandbox itself holds: cat is refused.
    expect(outputs.find((item) => item.call_id === "call_cat")?.output).toContain("Permission denied");
    // The disk check refuses it first: the editor is never asked.
    expect(editorReads).toEqual([]);
    expect(JSON.stringify(outputs)).not.toContain("SECRET-TICKET");
  });

  it("does not patch another user's file in /tmp that the sandbox may read but not write", { timeout: 60_000 }, async () => {
    const home = tempDir("aas-dac-home-");
    const workspace = tempDir("aas-dac-ws-");
    const other = tempDir("aas-dac-other-");
    chmodSync(other, 0o755);
    const notes = path.join(other, "notes.txt");
    writeFileSync(notes, "theirs\n");
    chownSync(notes, 1000, 1000);
    chmodSync(notes, 0o644);
    const mock = await startMockModel({
      responses: [
        { items: [{ type: "apply_patch", callId: "call_patch", patch: `*** Begin Patch\n*** Update File: ${notes}\n@@\n-theirs\n+mine\n*** End Patch\n` }] },
        { items: [{ type: "message", text: "Done." }] },
      ],
    });
    mocks.push(mock);
    const { agent, sessionId } = await startAcpSession([...providerArgs(mock.url), "-c", `approval_policy="never"`, "-c", `sandbox_mode="workspace-write"`], { cwd: workspace, home });
    await agent.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "Patch it." }] });
    const output = (mock.requests[1]!.body.input as Array<{ type: string; call_id?: string; output?: string }>).find((item) => item.type === "custom_tool_call_output" && item.call_id === "call_patch")?.output;
    expect(output).toContain("permission denied");
    expect(readFileSync(notes, "utf8")).toBe("theirs\n");
  });
});
