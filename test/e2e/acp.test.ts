import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { startMockModel, type MockResponseInput } from "../../src/testing/index.js";
import { startAcp, stopAcpAgents, type AcpAgent, type EditorHandlers } from "../support/acpClient.js";
import { mcpServerScript } from "../support/mcpCalcServer.js";
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

  it("asks permission for commands (allowed once, rejected) and shows a patch as diffs, with kinds and locations", async () => {
    const answers = ["approved", "denied", "approved"];
    const asked: acp.RequestPermissionRequest[] = [];
    const { agent, workspace } = await editorSession(
      [
        { items: [{ type: "exec", cmd: "touch approved.txt && echo made", callId: "call_ok", sandbox_permissions: "require_escalated", justification: "Make it" }] },
        { items: [{ type: "exec", cmd: "touch declined.txt", callId: "call_no", sandbox_permissions: "require_escalated", justification: "Make another" }] },
        { items: [{ type: "exec", cmd: "cat notes.md", callId: "call_read" }] },
        { items: [{ type: "apply_patch", callId: "call_patch", patch: "*** Begin Patch\n*** Update File: notes.md\n@@\n # Notes\n-old line\n+new line\n*** End Patch\n" }] },
        { items: [{ type: "message", text: "Done." }] },
      ],
      {
        args: ["-c", `approval_policy="on-request"`, "-c", `sandbox_mode="read-only"`],
        handlers: {
          permission: (request) => {
            asked.push(request);
            return { outcome: { outcome: "selected", optionId: answers.shift()! } };
          },
        },
      },
    );
    const { sessionId } = await agent.agent.request(acp.methods.agent.session.new, { cwd: workspace, mcpServers: [] });
    const result = await agent.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "Make the files, read and patch the notes." }] });
    expect(result.stopReason).toBe("end_turn");
    // Two commands asked, then the patch (read-only: a write is asked).
    expect(asked.map((request) => request.toolCall.toolCallId)).toEqual(["call_ok", "call_no", "call_patch"]);
    expect(asked[0]!.toolCall).toMatchObject({ kind: "execute", status: "pending" });
    expect(asked[0]!.options.map((option) => option.kind)).toEqual(expect.arrayContaining(["allow_once", "allow_always", "reject_once"]));
    const calls = updatesOf(agent, "tool_call") as Array<acp.ToolCall & { sessionUpdate: string }>;
    const byId = (id: string) => calls.find((call) => call.toolCallId === id)!;
    expect(byId("call_read")).toMatchObject({ kind: "read", title: "Read notes.md", locations: [{ path: path.join(workspace, "notes.md") }] });
    expect(byId("call_patch")).toMatchObject({ kind: "edit", locations: [{ path: path.join(workspace, "notes.md") }] });
    const ends = updatesOf(agent, "tool_call_update") as Array<acp.ToolCallUpdate & { sessionUpdate: string }>;
    const endOf = (id: string) => ends.filter((update) => update.toolCallId === id && update.status).at(-1)!;
    expect(endOf("call_ok").status).toBe("completed");
    expect(endOf("call_no").status).toBe("failed");
    expect(JSON.stringify(endOf("call_ok").content)).toContain("made");
    expect(endOf("call_patch")).toMatchObject({ status: "completed", content: [{ type: "diff", path: path.join(workspace, "notes.md"), oldText: "# Notes\nold line", newText: "# Notes\nnew line" }] });
    expect(readFileSync(path.join(workspace, "notes.md"), "utf8")).toBe("# Notes\nnew line\n");
    expect(agent.invalid).toEqual([]);
  });

  it("cancels a running prompt (its question answered cancelled), then loads the session with its history", async () => {
    const home = tempDir("aas-acp-home-");
    const { agent, workspace } = await editorSession(
      [
        { items: [{ type: "message", deltas: ["First ", "answer."] }] },
        { items: [{ type: "message", deltas: ["Working"] }], hang: true },
      ],
      { home },
    );
    const { sessionId } = await agent.agent.request(acp.methods.agent.session.new, { cwd: workspace, mcpServers: [] });
    await agent.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "First question" }] });
    const second = agent.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "Second question" }] });
    await waitFor(() => textOf(agent, "agent_message_chunk").endsWith("Working"));
    await agent.agent.notify(acp.methods.agent.session.cancel, { sessionId });
    expect((await second).stopReason).toBe("cancelled");
    expect(await agent.close()).toBe(0);

    // Another editor process, the same home: the session loads with what was said.
    const again = startAcp([], { cwd: workspace, home });
    await again.agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION });
    const listed = await again.agent.request(acp.methods.agent.session.list, {});
    expect(listed.sessions.map((entry) => entry.sessionId)).toContain(sessionId);
    const loaded = await again.agent.request(acp.methods.agent.session.load, { sessionId, cwd: workspace, mcpServers: [] });
    expect(loaded.modes?.currentModeId).toBeDefined();
    expect(textOf(again, "user_message_chunk")).toBe("First questionSecond question");
    expect(textOf(again, "agent_message_chunk")).toBe("First answer.Working");
    expect(again.invalid).toEqual([]);
    await expect(again.agent.request(acp.methods.agent.session.load, { sessionId: "no-such-session", cwd: workspace, mcpServers: [] })).rejects.toThrow();
  });

  it("stops a prompt cancelled while its turn starts, and keeps a running prompt when its session is loaded again", async () => {
    const { agent, workspace } = await editorSession([
      { items: [{ type: "message", deltas: ["Working"] }], hang: true },
      { items: [{ type: "message", deltas: ["Working"] }], hang: true },
    ]);
    const { sessionId } = await agent.agent.request(acp.methods.agent.session.new, { cwd: workspace, mcpServers: [] });
    // The cancel comes right behind the prompt, before the turn has an id to interrupt.
    const first = agent.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "First" }] });
    await agent.agent.notify(acp.methods.agent.session.cancel, { sessionId });
    expect(await settled(first)).toBe("cancelled");

    // Reloaded mid-prompt (an editor reopening its tab): the prompt is still the session's, so a cancel ends it.
    const said = updatesOf(agent, "agent_message_chunk").length;
    const second = agent.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "Second" }] });
    await waitFor(() => updatesOf(agent, "agent_message_chunk").length > said);
    await agent.agent.request(acp.methods.agent.session.load, { sessionId, cwd: workspace, mcpServers: [] });
    await expect(agent.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "Meanwhile" }] })).rejects.toThrow(/already running/);
    await agent.agent.notify(acp.methods.agent.session.cancel, { sessionId });
    expect(await settled(second)).toBe("cancelled");
    expect(agent.invalid).toEqual([]);
  });

  it("starts the MCP servers a session names for that session alone, shows their tool calls, and stops them with it", async () => {
    const { agent, workspace, mock } = await editorSession([
      { items: [{ type: "function_call", name: "mcp__calc__add", arguments: { a: 2, b: 5 }, callId: "call_add" }] },
      { items: [{ type: "message", text: "Seven." }] },
      { items: [{ type: "message", text: "No calculator here." }] },
    ]);
    const script = mcpServerScript();
    const { sessionId } = await agent.agent.request(acp.methods.agent.session.new, {
      cwd: workspace,
      mcpServers: [{ name: "calc", command: process.execPath, args: [script], env: [{ name: "CALC_MODE", value: "test" }] }],
    });
    await agent.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "Add 2 and 5." }] });
    expect(updatesOf(agent, "tool_call")).toEqual([expect.objectContaining({ toolCallId: "call_add", title: "Tool: calc/add", rawInput: { a: 2, b: 5 } })]);
    const end = (updatesOf(agent, "tool_call_update") as acp.ToolCallUpdate[]).find((update) => update.toolCallId === "call_add");
    expect(end).toMatchObject({ status: "completed", content: [{ type: "content", content: { type: "text", text: "The sum is 7" } }] });
    // Another session (another project, say) is not offered them.
    const other = (await agent.agent.request(acp.methods.agent.session.new, { cwd: workspace, mcpServers: [] })).sessionId;
    await agent.agent.request(acp.methods.agent.session.prompt, { sessionId: other, prompt: [{ type: "text", text: "Add 2 and 5." }] });
    const toolNames = (request: number) => (mock.requests[request]!.body.tools as Array<{ name: string }>).map((tool) => tool.name);
    expect(toolNames(0)).toContain("mcp__calc__add");
    expect(toolNames(2)).not.toContain("mcp__calc__add");
    await agent.agent.request(acp.methods.agent.session.close, { sessionId });
    await waitFor(() => !processRuns(script));
    expect(agent.invalid).toEqual([]);
  });

  it("without a sandbox, reads and patches files as the editor has them (unsaved edits) and gives it the new text", async () => {
    const reads: string[] = [];
    const writes: acp.WriteTextFileRequest[] = [];
    const { agent, workspace, mock } = await editorSession(
      [
        { items: [{ type: "function_call", name: "read_file", arguments: { file_path: "notes.md" }, callId: "call_read" }] },
        { items: [{ type: "apply_patch", callId: "call_patch", patch: "*** Begin Patch\n*** Update File: notes.md\n@@\n # Notes\n-unsaved line\n+patched line\n*** End Patch\n" }] },
        { items: [{ type: "message", text: "Patched." }] },
      ],
      {
        args: ["-c", `approval_policy="never"`, "-c", `sandbox_mode="danger-full-access"`],
        handlers: {
          readTextFile: (request) => {
            reads.push(request.path);
            return { content: readFileSync(request.path, "utf8").replace("old line", "unsaved line") };
          },
          writeTextFile: (request) => {
            writes.push(request);
            return {};
          },
        },
      },
    );
    const { sessionId } = await agent.agent.request(acp.methods.agent.session.new, { cwd: workspace, mcpServers: [] });
    await agent.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "Patch the line I am editing." }] });
    const notes = path.join(workspace, "notes.md");
    expect(reads).toEqual([notes, notes]);
    expect((mock.requests[0]!.body.tools as Array<{ name: string }>).map((tool) => tool.name)).toContain("read_file");
    const read = (mock.requests[1]!.body.input as any[]).find((item) => item.type === "function_call_output" && item.call_id === "call_read")?.output;
    expect(read).toBe("L1: # Notes\nL2: unsaved line");
    expect((updatesOf(agent, "tool_call") as acp.ToolCall[]).find((call) => call.toolCallId === "call_read")).toMatchObject({ kind: "read", title: "Read notes.md", locations: [{ path: notes }] });
    const end = (updatesOf(agent, "tool_call_update") as acp.ToolCallUpdate[]).find((update) => update.toolCallId === "call_patch" && update.status);
    expect(end).toMatchObject({ status: "completed", content: [{ type: "diff", oldText: "# Notes\nunsaved line", newText: "# Notes\npatched line" }] });
    // Written to disk, then shown in the editor.
    expect(readFileSync(notes, "utf8")).toBe("# Notes\npatched line\n");
    expect(writes).toEqual([{ sessionId, path: notes, content: "# Notes\npatched line\n" }]);
    expect(agent.invalid).toEqual([]);
  });

  it("in a sandbox, uses the editor's files only while no command runs: a command could swap a directory of the path between the checks and the editor's use", async () => {
    const calls: string[] = [];
    const readNotes = { type: "function_call" as const, name: "read_file", arguments: { file_path: "notes.md" } };
    const { agent, workspace, mock } = await editorSession(
      [
        { items: [{ ...readNotes, callId: "call_read_1" }] },
        // Waits for a line: still running when the next calls come.
        { items: [{ type: "exec", cmd: "read line; echo got:$line", callId: "call_wait", yield_time_ms: 100 }] },
        { items: [{ ...readNotes, callId: "call_read_2" }] },
        { items: [{ type: "apply_patch", callId: "call_patch_1", patch: "*** Begin Patch\n*** Update File: notes.md\n@@\n # Notes\n-old line\n+disk line\n*** End Patch\n" }] },
        { items: [{ type: "function_call", name: "write_stdin", arguments: { session_id: 1, chars: "go\n", yield_time_ms: 5000 }, callId: "call_go" }] },
        { items: [{ ...readNotes, callId: "call_read_3" }] },
        { items: [{ type: "apply_patch", callId: "call_patch_2", patch: "*** Begin Patch\n*** Update File: notes.md\n@@\n # Notes\n-unsaved line\n+editor line\n*** End Patch\n" }] },
        { items: [{ type: "message", text: "Patched." }] },
      ],
      {
        args: ["-c", `approval_policy="never"`, "-c", `sandbox_mode="workspace-write"`],
        handlers: {
          readTextFile: (request) => (calls.push(`read ${path.basename(request.path)}`), { content: "# Notes\nunsaved line\n" }),
          writeTextFile: (request) => (calls.push(`write ${path.basename(request.path)}: ${request.content}`), {}),
        },
      },
    );
    const { sessionId } = await agent.agent.request(acp.methods.agent.session.new, { cwd: workspace, mcpServers: [] });
    const result = await agent.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "Patch the notes." }] });
    expect(result.stopReason).toBe("end_turn");
    expect((mock.requests[0]!.body.tools as Array<{ name: string }>).map((tool) => tool.name)).toContain("read_file");
    const output = (request: number, callId: string) => (mock.requests[request]!.body.input as any[]).find((item) => item.type === "function_call_output" && item.call_id === callId)?.output;
    // No command ran: the editor's buffer. One ran: the disk, the editor neither asked nor written.
    expect(output(1, "call_read_1")).toBe("L1: # Notes\nL2: unsaved line");
    expect(output(3, "call_read_2")).toBe("L1: # Notes\nL2: old line");
    expect(output(6, "call_read_3")).toBe("L1: # Notes\nL2: unsaved line");
    expect(calls).toEqual(["read notes.md", "read notes.md", "read notes.md", "write notes.md: # Notes\neditor line\n"]);
    expect(readFileSync(path.join(workspace, "notes.md"), "utf8")).toBe("# Notes\neditor line\n");
    expect(agent.invalid).toEqual([]);
  });

  it("streams plans and context usage, takes embedded context and images, and runs /compact", async () => {
    const { agent, workspace, mock } = await editorSession([
      {
        items: [
          {
            type: "function_call",
            name: "update_plan",
            arguments: { plan: [{ step: "Read the notes", status: "completed" }, { step: "Answer", status: "in_progress" }] },
            callId: "call_plan",
          },
        ],
      },
      { items: [{ type: "message", text: "Answered." }], usage: { input_tokens: 1200, output_tokens: 34 } },
      { items: [{ type: "message", text: "Summary of the conversation." }] },
    ]);
    const { sessionId } = await agent.agent.request(acp.methods.agent.session.new, { cwd: workspace, mcpServers: [] });
    const notes = path.join(workspace, "notes.md");
    await agent.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [
        { type: "text", text: "What does this say?" },
        { type: "resource", resource: { uri: `file://${notes}`, text: "# Notes\nunsaved text\n", mimeType: "text/markdown" } },
        { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
      ],
    });
    expect(updatesOf(agent, "plan").at(-1)).toEqual({
      sessionUpdate: "plan",
      entries: [
        { content: "Read the notes", priority: "medium", status: "completed" },
        { content: "Answer", priority: "medium", status: "in_progress" },
      ],
    });
    expect(updatesOf(agent, "usage_update").at(-1)).toMatchObject({ sessionUpdate: "usage_update", used: 1234 });
    const sent = JSON.stringify(mock.requests[0]!.body.input);
    expect(sent).toContain(`<context ref=\\"file://${notes}\\">\\n# Notes\\nunsaved text`);
    expect(sent).toContain("data:image/png;base64,iVBORw0KGgo=");
    const commands = updatesOf(agent, "available_commands_update")[0] as { availableCommands: acp.AvailableCommand[] };
    expect(commands.availableCommands.map((command) => command.name)).toEqual(["review", "compact"]);
    expect((await agent.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "/compact" }] })).stopReason).toBe("end_turn");
    expect(mock.requests).toHaveLength(3);
    expect(agent.invalid).toEqual([]);
  });

  it("shows a chatty command's output at most every 100 ms, and refuses bad params with their own codes", async () => {
    const { agent, workspace } = await editorSession(
      [
        { items: [{ type: "exec", cmd: "for i in $(seq 1 5000); do echo line $i; done", callId: "call_chatty" }] },
        { items: [{ type: "message", text: "Printed." }] },
      ],
      { args: ["-c", `approval_policy="never"`, "-c", `sandbox_mode="danger-full-access"`] },
    );
    const { sessionId } = await agent.agent.request(acp.methods.agent.session.new, { cwd: workspace, mcpServers: [] });
    const started = Date.now();
    await agent.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "Print a lot." }] });
    const shown = (updatesOf(agent, "tool_call_update") as acp.ToolCallUpdate[]).filter((update) => update.toolCallId === "call_chatty");
    // One per 100 ms at most, and the completion (with the whole tail) besides.
    expect(shown.length).toBeLessThanOrEqual(Math.ceil((Date.now() - started) / 100) + 2);
    expect(JSON.stringify(shown.at(-1)!.content)).toContain("line 5000");
    await expect(agent.agent.request(acp.methods.agent.session.new, { cwd: "relative/dir", mcpServers: [] })).rejects.toMatchObject({ code: -32602 });
    await expect(agent.agent.request(acp.methods.agent.session.list, { cursor: "not-a-cursor" })).rejects.toMatchObject({ code: expect.toSatisfy((code: number) => code === -32600 || code === -32602) });
    expect(agent.invalid).toEqual([]);
  });

  it("shows the automatic reviewer's decisions (approvals_reviewer in the config) as think calls, asking the editor nothing", async () => {
    const asked: string[] = [];
    const { agent, workspace } = await editorSession(
      [
        { items: [{ type: "exec", cmd: "touch reviewed.txt", callId: "call_1", sandbox_permissions: "require_escalated", justification: "Needs to write" }] },
        { items: [{ type: "message", text: JSON.stringify({ risk_level: "low", user_authorization: "high", outcome: "allow", rationale: "The user asked for this file." }) }] },
        { items: [{ type: "message", text: "Done." }] },
      ],
      {
        args: ["-c", `approval_policy="on-request"`, "-c", `sandbox_mode="workspace-write"`, "-c", `approvals_reviewer="auto_review"`],
        handlers: { permission: (request) => (asked.push(request.toolCall.toolCallId), { outcome: { outcome: "cancelled" } }) },
      },
    );
    const { sessionId } = await agent.agent.request(acp.methods.agent.session.new, { cwd: workspace, mcpServers: [] });
    await agent.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "Make the file." }] });
    expect(asked).toEqual([]);
    const think = (updatesOf(agent, "tool_call") as acp.ToolCall[]).find((call) => call.kind === "think");
    expect(think?.title).toContain("Reviewing");
    expect(think?.title).toContain("touch reviewed.txt");
    const done = (updatesOf(agent, "tool_call_update") as acp.ToolCallUpdate[]).find((update) => update.toolCallId === think?.toolCallId);
    expect(done).toMatchObject({ status: "completed", content: [{ type: "content", content: { type: "text", text: "The user asked for this file." } }] });
    expect(readFileSync(path.join(workspace, "reviewed.txt"), "utf8")).toBe("");
    expect(agent.invalid).toEqual([]);
  });

  it("writes in a session's additional directories, closes a session, and resumes it without replaying its history", async () => {
    const extra = tempDir("aas-acp-extra-");
    const { agent, workspace } = await editorSession(
      [
        { items: [{ type: "exec", cmd: `touch ${extra}/made.txt`, callId: "call_extra" }] },
        { items: [{ type: "message", text: "Made." }] },
        { items: [{ type: "message", text: "Resumed." }] },
      ],
      // Temp directories are writable roots unless excluded; the extra directory is in one.
      { args: ["-c", `approval_policy="never"`, "-c", `sandbox_mode="workspace-write"`, "-c", "sandbox_workspace_write.exclude_slash_tmp=true", "-c", "sandbox_workspace_write.exclude_tmpdir_env_var=true"] },
    );
    const init = await agent.agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION });
    expect(init.agentCapabilities?.sessionCapabilities).toMatchObject({ resume: {}, close: {}, additionalDirectories: {} });
    const { sessionId } = await agent.agent.request(acp.methods.agent.session.new, { cwd: workspace, additionalDirectories: [extra], mcpServers: [] });
    await agent.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "Make it there." }] });
    expect(readFileSync(path.join(extra, "made.txt"), "utf8")).toBe("");
    await agent.agent.request(acp.methods.agent.session.close, { sessionId });
    await expect(agent.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "Closed?" }] })).rejects.toMatchObject({ code: -32002 });
    const chunks = updatesOf(agent, "agent_message_chunk").length;
    await agent.agent.request(acp.methods.agent.session.resume, { sessionId, cwd: workspace });
    expect(updatesOf(agent, "agent_message_chunk")).toHaveLength(chunks);
    expect((await agent.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "Again." }] })).stopReason).toBe("end_turn");
    expect(textOf(agent, "agent_message_chunk")).toBe("Made.Resumed.");
    await expect(agent.agent.request(acp.methods.agent.session.new, { cwd: workspace, additionalDirectories: ["relative"], mcpServers: [] })).rejects.toMatchObject({ code: -32602 });
    expect(agent.invalid).toEqual([]);
  });

  it("answers authenticate per provider: the key set, or what to set", async () => {
    const mock = await startMockModel({ responses: [] });
    mocks.push(mock);
    const withKey = startAcp([...providerArgs(mock.url, { envKey: "ACP_TEST_KEY" })], { env: { ACP_TEST_KEY: "sk-test" } });
    const init = await withKey.agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION });
    expect(init.authMethods?.map((method) => method.id)).toEqual(expect.arrayContaining(["mock", "openai"]));
    await expect(withKey.agent.request(acp.methods.agent.authenticate, { methodId: "mock" })).resolves.toEqual({});
    const withoutKey = startAcp([...providerArgs(mock.url, { envKey: "ACP_TEST_KEY" })], { env: { ACP_TEST_KEY: "" } });
    await withoutKey.agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION });
    await expect(withoutKey.agent.request(acp.methods.agent.authenticate, { methodId: "mock" })).rejects.toMatchObject({ code: -32000, message: expect.stringContaining("ACP_TEST_KEY") });
    expect([...withKey.invalid, ...withoutKey.invalid]).toEqual([]);
  });

  it("switches the approval preset and the model for the next prompt", async () => {
    const { agent, workspace, mock } = await editorSession([
      { items: [{ type: "exec", cmd: "touch written.txt", callId: "call_write" }] },
      { items: [{ type: "message", text: "Written." }] },
    ]);
    const { sessionId } = await agent.agent.request(acp.methods.agent.session.new, { cwd: workspace, mcpServers: [] });
    await agent.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: "full-access" });
    // Editors that predate config options send session/set_model; the config option wins when both come.
    await agent.agent.request("session/set_model", { sessionId, modelId: "gpt-5.2" });
    const options = await agent.agent.request(acp.methods.agent.session.setConfigOption, { sessionId, configId: "model", value: "gpt-5.4" });
    expect(options.configOptions.find((option) => option.id === "model")).toMatchObject({ currentValue: "gpt-5.4" });
    await agent.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "Write it." }] });
    expect(mock.requests[0]!.body.model).toBe("gpt-5.4");
    // Full access: no question, and the write lands.
    expect(readFileSync(path.join(workspace, "written.txt"), "utf8")).toBe("");
    await expect(agent.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: "yolo" })).rejects.toMatchObject({ code: -32602 });
    await expect(agent.agent.request(acp.methods.agent.session.delete, { sessionId })).rejects.toMatchObject({ code: -32601 });
    expect(agent.invalid).toEqual([]);
  });
});

/** A prompt's stop reason, failing after 10 s rather than hanging the test. */
async function settled(prompt: Promise<acp.PromptResponse>): Promise<string> {
  let stopReason: string | undefined;
  void prompt.then((result) => (stopReason = result.stopReason));
  await waitFor(() => stopReason !== undefined);
  return stopReason!;
}

/** Whether a process runs whose command line names `file`. */
function processRuns(file: string): boolean {
  return readdirSync("/proc").some((pid) => {
    try {
      return /^\d+$/.test(pid) && readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(file);
    } catch {
      return false;
    }
  });
}

/** Waits (polling every 10 ms, at most 10 s) until `ready` holds. */
async function waitFor(ready: () => boolean): Promise<void> {
  for (const started = Date.now(); !ready(); ) {
    if (Date.now() - started > 10_000) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
