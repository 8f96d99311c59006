import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { startMockModel } from "../../src/testing/index.js";
import { ServerProcess } from "../support/serverProcess.js";
import { launch, mocks, runTurn, servers, startThread, tempDir, type ProviderOptions } from "../support/turnHarness.js";

/** A 1×1 PNG. */
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";
const KEY = "sk-ant-test-key";

/** The mock provider speaking Anthropic's wire, its key in ANTHROPIC_API_KEY. */
const CLAUDE: ProviderOptions = { wire: "anthropic", model: "claude-sonnet-4-5", envKey: "ANTHROPIC_API_KEY" };
const ENV = { ANTHROPIC_API_KEY: KEY };

function completedItems(server: ServerProcess, type: string): any[] {
  return server.messages.filter((m) => m.method === "item/completed" && m.params.item.type === type).map((m) => m.params.item);
}

describe("the Anthropic wire (Messages API through @anthropic-ai/sdk)", () => {
  it("streams text as it comes, with the key, version and a cached system prompt", async () => {
    const { server, mock } = await launch([{ items: [{ type: "message", deltas: ["Hel", "lo ", "Claude."] }] }], { ...CLAUDE, env: ENV });
    const threadId = await startThread(server);
    const { completed } = await runTurn(server, threadId, "Hi.");
    expect(completed.params.turn.status).toBe("completed");
    const deltas = server.messages.filter((m) => m.method === "item/agentMessage/delta").map((m) => m.params.delta);
    expect(deltas).toEqual(["Hel", "lo ", "Claude."]);
    expect(completedItems(server, "agentMessage")).toEqual([expect.objectContaining({ text: "Hello Claude." })]);
    const request = mock.requests[0]!;
    expect(request).toMatchObject({ api: "anthropic", path: "/v1/messages" });
    // The SDK (1.x) sends the key as a bearer token.
    expect(request.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(request.headers["anthropic-version"]).toBeTruthy();
    expect(request.body).toMatchObject({ model: "claude-sonnet-4-5", stream: true, max_tokens: 32000 });
    const system = request.body.system as any[];
    expect(system).toEqual([expect.objectContaining({ type: "text", cache_control: { type: "ephemeral" } })]);
    const messages = request.body.messages as any[];
    expect(messages.at(-1)).toMatchObject({ role: "user" });
    expect(messages.at(-1).content.at(-1)).toMatchObject({ text: "Hi.", cache_control: { type: "ephemeral" } });
  });

  it("runs streamed tool calls, in parallel, and sends thinking, calls and results back in order with their signature", async () => {
    const { server, mock } = await launch(
      [
        {
          usage: { input_tokens: 1000, cached_tokens: 800, output_tokens: 50, reasoning_tokens: 30 },
          items: [
            { type: "reasoning", summary: ["I should look."], encryptedContent: "sig-abc" },
            { type: "message", text: "Checking." },
            { type: "exec", cmd: "echo one", callId: "toolu_1" },
            { type: "exec", cmd: "echo two", callId: "toolu_2" },
          ],
        },
        { items: [{ type: "message", text: "Both ran." }] },
      ],
      { ...CLAUDE, env: ENV, sandbox: "danger-full-access", args: ["-c", `model_reasoning_effort="high"`] },
    );
    const threadId = await startThread(server);
    const { completed } = await runTurn(server, threadId, "Run both.");
    expect(completed.params.turn.status).toBe("completed");
    expect(completedItems(server, "commandExecution").map((item) => item.aggregatedOutput)).toEqual(["one\n", "two\n"]);
    const reasoning = completedItems(server, "reasoning");
    expect(reasoning).toEqual([expect.objectContaining({ summary: ["I should look."] })]);
    expect(server.messages.filter((m) => m.method === "item/reasoning/summaryTextDelta").map((m) => m.params.delta)).toEqual(["I should look."]);

    expect(mock.requests[0]!.body.thinking).toEqual({ type: "enabled", budget_tokens: 20000 });
    const tools = mock.requests[0]!.body.tools as any[];
    expect(tools.at(-1).cache_control).toEqual({ type: "ephemeral" });
    expect(tools.find((tool) => tool.name === "exec_command").input_schema).toMatchObject({ type: "object" });

    const messages = mock.requests[1]!.body.messages as any[];
    const [assistant, results] = messages.slice(-2);
    expect(assistant.role).toBe("assistant");
    expect(assistant.content).toEqual([
      { type: "thinking", thinking: "I should look.", signature: "sig-abc" },
      { type: "text", text: "Checking." },
      { type: "tool_use", id: "toolu_1", name: "exec_command", input: expect.objectContaining({ cmd: "echo one" }) },
      { type: "tool_use", id: "toolu_2", name: "exec_command", input: expect.objectContaining({ cmd: "echo two" }) },
    ]);
    expect(results.role).toBe("user");
    expect(results.content.map((block: any) => [block.type, block.tool_use_id])).toEqual([
      ["tool_result", "toolu_1"],
      ["tool_result", "toolu_2"],
    ]);
    expect(results.content[0].content).toContain("one");
    expect(results.content.at(-1).cache_control).toEqual({ type: "ephemeral" });

    const usage = server.messages.find((m) => m.method === "thread/tokenUsage/updated")!.params.tokenUsage.last;
    expect(usage).toMatchObject({ inputTokens: 1000, cachedInputTokens: 800, outputTokens: 50, reasoningOutputTokens: 30, totalTokens: 1050 });
  });

  it("offers apply_patch as a function with one string input, and applies what Claude sends", async () => {
    const workspace = tempDir("aas-claude-ws-");
    const patch = "*** Begin Patch\n*** Add File: hello.txt\n+hi from claude\n*** End Patch\n";
    const { server, mock } = await launch([{ items: [{ type: "apply_patch", patch, callId: "toolu_p" }] }, { items: [{ type: "message", text: "Added." }] }], {
      ...CLAUDE,
      env: ENV,
      sandbox: "workspace-write",
    });
    const threadId = await startThread(server, { cwd: workspace });
    const { completed } = await runTurn(server, threadId, "Add it.");
    expect(completed.params.turn.status).toBe("completed");
    expect(readFileSync(path.join(workspace, "hello.txt"), "utf8")).toBe("hi from claude\n");
    const tool = (mock.requests[0]!.body.tools as any[]).find((entry) => entry.name === "apply_patch");
    expect(tool.input_schema).toMatchObject({ properties: { input: { type: "string" } }, required: ["input"] });
    const assistant = (mock.requests[1]!.body.messages as any[]).at(-2);
    expect(assistant.content).toEqual([{ type: "tool_use", id: "toolu_p", name: "apply_patch", input: { input: patch } }]);
  });

  it("sends images as base64 blocks and outputSchema as a JSON format", async () => {
    const workspace = tempDir("aas-claude-img-");
    writeFileSync(path.join(workspace, "dot.png"), Buffer.from(PNG, "base64"));
    const { server, mock } = await launch([{ items: [{ type: "message", text: '{"ok":true}' }] }], { ...CLAUDE, env: ENV });
    const threadId = await startThread(server, { cwd: workspace });
    const schema = { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"], additionalProperties: false };
    await runTurn(server, threadId, "Look.", {
      input: [
        { type: "text", text: "Look." },
        { type: "localImage", path: path.join(workspace, "dot.png") },
      ],
      outputSchema: schema,
    });
    const body = mock.requests[0]!.body;
    expect(body.output_config).toEqual({ format: { type: "json_schema", schema } });
    const blocks = (body.messages as any[]).at(-1).content as any[];
    expect(blocks.some((block) => block.type === "image" && block.source.type === "base64" && block.source.media_type === "image/png" && block.source.data === PNG)).toBe(true);
  });

  it("fails at once on a 401 with Anthropic's message and the variable to set", async () => {
    const { server, mock } = await launch([{ httpStatus: 401, errorBody: { type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } } }], {
      ...CLAUDE,
      env: ENV,
      requestRetries: 3,
      streamRetries: 3,
    });
    const threadId = await startThread(server);
    const { completed } = await runTurn(server, threadId, "Hi.");
    expect(completed.params.turn).toMatchObject({ status: "failed", error: { codexErrorInfo: "unauthorized" } });
    expect(completed.params.turn.error.message).toBe("invalid x-api-key. Check the API key in `ANTHROPIC_API_KEY`.");
    expect(mock.requests).toHaveLength(1);
  });

  it("retries a 529 overloaded after its retry-after, and an error event mid-stream with a Reconnecting notice", async () => {
    const { server, mock } = await launch(
      [
        { httpStatus: 529, headers: { "retry-after": "0" } },
        { items: [{ type: "message", text: "Part" }], failed: { code: "overloaded_error", message: "Overloaded" } },
        { items: [{ type: "message", text: "Whole answer." }] },
      ],
      { ...CLAUDE, env: ENV, requestRetries: 2, streamRetries: 2 },
    );
    const threadId = await startThread(server);
    const { completed } = await runTurn(server, threadId, "Hi.");
    expect(completed.params.turn.status).toBe("completed");
    expect(mock.requests).toHaveLength(3);
    const notices = server.messages.filter((m) => m.method === "error").map((m) => m.params);
    expect(notices).toEqual([expect.objectContaining({ willRetry: true, error: expect.objectContaining({ message: expect.stringContaining("Reconnecting") }) })]);
    expect(completedItems(server, "agentMessage").at(-1).text).toBe("Whole answer.");
  });

  it("fails a prompt that is too long as contextWindowExceeded", async () => {
    const errorBody = { type: "error", error: { type: "invalid_request_error", message: "prompt is too long: 208310 tokens > 200000 maximum" } };
    const { server } = await launch([{ httpStatus: 400, errorBody }], { ...CLAUDE, env: ENV });
    const threadId = await startThread(server);
    const { completed } = await runTurn(server, threadId, "Hi.");
    expect(completed.params.turn).toMatchObject({ status: "failed", error: { codexErrorInfo: "contextWindowExceeded" } });
  });

  it("interrupts a streaming answer at once, closing the HTTP stream", async () => {
    const { server, mock } = await launch([{ deltaDelayMs: 100, items: [{ type: "message", repeat: 200, delta: "slow " }] }], { ...CLAUDE, env: ENV });
    const threadId = await startThread(server);
    const started = await server.request("turn/start", { threadId, input: [{ type: "text", text: "Long." }] });
    await server.waitFor((m) => m.method === "item/agentMessage/delta");
    await server.request("turn/interrupt", { threadId, turnId: started.result.turn.id });
    const completed = await server.waitFor((m) => m.method === "turn/completed");
    expect(completed.params.turn.status).toBe("interrupted");
    expect(server.messages.filter((m) => m.method === "item/agentMessage/delta").length).toBeLessThan(200);
    await mock.waitForClosedStreams();
  });

  it("compacts a thread over this wire", async () => {
    const { server, mock } = await launch(
      [{ items: [{ type: "message", text: "First answer." }] }, { items: [{ type: "message", text: "Summary of the work so far." }] }],
      { ...CLAUDE, env: ENV, capabilities: { experimentalApi: true } },
    );
    const threadId = await startThread(server);
    const first = await runTurn(server, threadId, "Hi.");
    const compact = await server.request("thread/compact/start", { threadId });
    expect(compact.error).toBeUndefined();
    await server.waitFor((m) => m.method === "item/completed" && m.params.item.type === "contextCompaction");
    await server.waitFor((m) => m.method === "turn/completed" && m.params.turn.id !== first.turnId, "the compaction's turn/completed");
    expect(mock.requests[1]!.api).toBe("anthropic");
  });
});

describe("reviews over the Anthropic wire", () => {
  it("auto_review asks Claude for its strict JSON verdict, and the approved command runs", async () => {
    const workspace = tempDir("aas-claude-review-");
    const verdict = { risk_level: "low", user_authorization: "high", outcome: "allow", rationale: "Asked for." };
    const { server, mock } = await launch(
      [
        { items: [{ type: "exec", cmd: "touch made.txt", callId: "toolu_r", sandbox_permissions: "require_escalated", justification: "Needs to write" }] },
        { items: [{ type: "message", text: JSON.stringify(verdict) }] },
        { items: [{ type: "message", text: "Done." }] },
      ],
      { ...CLAUDE, env: ENV, approval: "on-request", sandbox: "workspace-write" },
    );
    const threadId = await startThread(server, { cwd: workspace, approvalsReviewer: "auto_review" });
    const { completed } = await runTurn(server, threadId, "Make the file.");
    expect(completed.params.turn.status).toBe("completed");
    expect(server.messages.find((m) => m.method === "item/autoApprovalReview/completed")?.params.review).toMatchObject({ status: "approved" });
    expect(readFileSync(path.join(workspace, "made.txt"), "utf8")).toBe("");
    const review = mock.requests[1]!;
    expect(review.api).toBe("anthropic");
    expect(review.body.output_config).toMatchObject({ format: { type: "json_schema", schema: { required: ["risk_level", "user_authorization", "outcome", "rationale"] } } });
  });
});

describe("the built-in anthropic provider", () => {
  it("is chosen by a claude-* model when no provider is set, at ANTHROPIC_BASE_URL", async () => {
    const mock = await startMockModel({ responses: [{ items: [{ type: "message", text: "From Claude." }] }] });
    mocks.push(mock);
    const server = ServerProcess.start({
      args: ["app-server", "-c", `model="claude-opus-4-1"`, "-c", `approval_policy="never"`],
      env: { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: mock.origin, OPENAI_API_KEY: "" },
    });
    servers.push(server);
    await server.initialize();
    const started = await server.request("thread/start", { cwd: tempDir("aas-claude-") });
    expect(started.result).toMatchObject({ model: "claude-opus-4-1", modelProvider: "anthropic" });
    const { completed } = await runTurn(server, started.result.thread.id, "Hi.");
    expect(completed.params.turn.status).toBe("completed");
    expect(mock.requests[0]).toMatchObject({ api: "anthropic", body: { model: "claude-opus-4-1" } });
    expect(mock.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
  });
});
