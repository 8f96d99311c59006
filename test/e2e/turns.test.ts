import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { startMockModel } from "../../src/testing/index.js";
import { ServerProcess } from "../support/serverProcess.js";
import { collapse, launch, mocks, runTurn, sequence, servers, startThread, tempDir } from "../support/turnHarness.js";

describe("turns", () => {
  it("streams a text answer in Codex's order, response first", async () => {
    const { server } = await launch([{ items: [{ type: "message", deltas: ["Hello", ", ", "world."] }] }]);
    const threadId = await startThread(server);
    const { turnId, completed } = await runTurn(server, threadId, "Say hello.");
    const responseIndex = server.messages.findIndex((m) => m.result?.turn?.id === turnId);
    const firstNotification = server.messages.findIndex((m) => m.params?.turn?.id === turnId || m.params?.turnId === turnId);
    expect(responseIndex).toBeLessThan(firstNotification);
    expect(server.messages[responseIndex].result.turn).toMatchObject({ status: "inProgress", items: [], startedAt: null });
    expect(collapse(sequence(server, turnId))).toEqual([
      "thread/status/changed",
      "turn/started",
      "item/started:userMessage",
      "item/completed:userMessage",
      "item/started:agentMessage",
      "item/agentMessage/delta",
      "item/completed:agentMessage",
      "thread/tokenUsage/updated",
      "thread/status/changed",
      "turn/completed",
    ]);
    const deltas = server.messages.filter((m) => m.method === "item/agentMessage/delta").map((m) => m.params.delta);
    expect(deltas).toEqual(["Hello", ", ", "world."]);
    expect(completed.params.turn).toMatchObject({ status: "completed", itemsView: "summary", error: null });
    expect(completed.params.turn.items).toEqual([expect.objectContaining({ type: "agentMessage", text: "Hello, world." })]);
    const statuses = server.messages.filter((m) => m.method === "thread/status/changed").map((m) => m.params.status);
    expect(statuses).toEqual([{ type: "active", activeFlags: [] }, { type: "idle" }]);
  });

  it("streams reasoning summaries and raw reasoning as a reasoning item", async () => {
    const { server } = await launch([
      {
        items: [
          { type: "reasoning", summary: ["First I look.", "Then I answer."], content: ["raw thought"] },
          { type: "message", text: "Done." },
        ],
      },
    ]);
    const threadId = await startThread(server);
    const { turnId } = await runTurn(server, threadId, "Think.");
    expect(collapse(sequence(server, turnId)).slice(4, 11)).toEqual([
      "item/started:reasoning",
      "item/reasoning/summaryPartAdded",
      "item/reasoning/summaryTextDelta",
      "item/reasoning/summaryPartAdded",
      "item/reasoning/summaryTextDelta",
      "item/reasoning/textDelta",
      "item/completed:reasoning",
    ]);
    const parts = server.messages.filter((m) => m.method === "item/reasoning/summaryPartAdded").map((m) => m.params.summaryIndex);
    expect(parts).toEqual([0, 1]);
    const reasoning = server.messages.find((m) => m.method === "item/completed" && m.params.item.type === "reasoning");
    expect(reasoning.params.item).toMatchObject({ summary: ["First I look.", "Then I answer."], content: ["raw thought"] });
  });

  it("sends the first turn's history with the second turn's request, and reports token usage", async () => {
    const { server, mock } = await launch([
      { items: [{ type: "message", text: "First answer." }], usage: { input_tokens: 100, output_tokens: 20, cached_tokens: 40 } },
      { items: [{ type: "message", text: "Second answer." }], usage: { input_tokens: 150, output_tokens: 30 } },
    ]);
    const threadId = await startThread(server, { developerInstructions: "Be terse." });
    const first = await runTurn(server, threadId, "First question.");
    await runTurn(server, threadId, "Second question.");
    const second = mock.requests[1]!.body;
    const conversation = (second.input as any[]).filter((item) => !JSON.stringify(item).includes("environment_context"));
    expect(conversation).toEqual([
      { type: "message", role: "developer", content: [{ type: "input_text", text: "Be terse." }] },
      { type: "message", role: "user", content: [{ type: "input_text", text: "First question." }] },
      { type: "message", role: "assistant", content: [{ type: "output_text", text: "First answer." }] },
      { type: "message", role: "user", content: [{ type: "input_text", text: "Second question." }] },
    ]);
    expect(second).toMatchObject({ model: "gpt-5.5", stream: true, store: false, prompt_cache_key: threadId });
    expect(typeof second.instructions).toBe("string");
    const usage = server.messages.filter((m) => m.method === "thread/tokenUsage/updated").map((m) => m.params);
    expect(usage).toHaveLength(2);
    expect(usage[0]).toMatchObject({ turnId: first.turnId, tokenUsage: { last: { inputTokens: 100, cachedInputTokens: 40, outputTokens: 20, totalTokens: 120 } } });
    expect(usage[1].tokenUsage.total).toMatchObject({ inputTokens: 250, outputTokens: 50, totalTokens: 300, cachedInputTokens: 40 });
    expect(usage[1].tokenUsage.modelContextWindow).toBe(258400);
  });

  it("speaks the chat wire, with tool calls, to OpenAI-compatible servers", async () => {
    const { server, mock } = await launch(
      [
        {
          items: [
            { type: "reasoning", content: ["thinking"] },
            { type: "function_call", name: "update_plan", arguments: { plan: [{ step: "Look", status: "in_progress" }] }, callId: "call_1" },
          ],
        },
        { items: [{ type: "message", deltas: ["All ", "done."] }] },
      ],
      { wire: "chat" },
    );
    const threadId = await startThread(server);
    const { turnId, completed } = await runTurn(server, threadId, "Plan it.");
    expect(mock.requests.map((r) => r.api)).toEqual(["chat", "chat"]);
    const second = mock.requests[1]!.body as { messages: any[]; tools: any[] };
    expect(second.messages[0].role).toBe("system");
    expect(second.messages.slice(-3)).toEqual([
      { role: "user", content: expect.stringMatching(/<\/environment_context>\n\nPlan it\.$/) },
      { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "update_plan", arguments: JSON.stringify({ plan: [{ step: "Look", status: "in_progress" }] }) } }] },
      { role: "tool", tool_call_id: "call_1", content: "Plan updated" },
    ]);
    expect(second.tools.map((tool) => tool.function.name)).toContain("update_plan");
    const plan = server.messages.find((m) => m.method === "turn/plan/updated");
    expect(plan.params).toMatchObject({ turnId, plan: [{ step: "Look", status: "inProgress" }] });
    expect(server.messages.find((m) => m.method === "item/completed" && m.params.item.type === "plan")).toBeDefined();
    expect(server.messages.some((m) => m.method === "item/reasoning/textDelta" && m.params.delta === "thinking")).toBe(true);
    expect(completed.params.turn.items[0]).toMatchObject({ type: "agentMessage", text: "All done." });
    expect(server.messages.filter((m) => m.method === "thread/tokenUsage/updated")).toHaveLength(2);
  });

  it("runs a turn with empty input without a userMessage item, as Codex does", async () => {
    const { server, mock } = await launch([{ items: [{ type: "message", text: "ok" }] }]);
    const threadId = await startThread(server);
    const { turnId, completed } = await runTurn(server, threadId, "", { input: [] });
    expect(completed.params.turn.status).toBe("completed");
    expect(sequence(server, turnId)).not.toContain("item/started:userMessage");
    expect(mock.requests).toHaveLength(1);
  });

  it("answers an unknown tool with `unsupported call`, fails its item and goes on", async () => {
    const { server, mock } = await launch([
      { items: [{ type: "function_call", name: "teleport", arguments: {}, callId: "call_x" }] },
      { items: [{ type: "message", text: "ok" }] },
    ]);
    const threadId = await startThread(server);
    const { completed } = await runTurn(server, threadId, "Go.");
    expect(completed.params.turn.status).toBe("completed");
    const answer = (mock.requests[1]!.body.input as any[]).at(-1);
    expect(answer).toMatchObject({ type: "function_call_output", call_id: "call_x" });
    expect(answer.output).toMatch(/^unsupported call: teleport\. No tool has this name; the tools are: .*\bexec_command\b/);
    const item = server.messages.find((m) => m.method === "item/completed" && m.params.item.id === "call_x").params.item;
    expect(item).toMatchObject({ type: "dynamicToolCall", tool: "teleport", arguments: {}, status: "failed", success: false, contentItems: [{ type: "inputText", text: answer.output }] });
  });

  it("fails the turn at once, naming the variable, when the API key is missing", async () => {
    const server = ServerProcess.start({ env: { OPENAI_API_KEY: "", OPENAI_BASE_URL: "http://127.0.0.1:9/v1" } });
    servers.push(server);
    await server.initialize();
    const threadId = await startThread(server);
    const { completed } = await runTurn(server, threadId, "Hi");
    expect(completed.params.turn.status).toBe("failed");
    expect(completed.params.turn.error.message).toContain("OPENAI_API_KEY");
    const tail = server.messages.filter((m) => m.method).slice(-3).map((m) => m.method);
    expect(tail).toEqual(["thread/status/changed", "error", "turn/completed"]);
    expect(server.messages.find((m) => m.method === "error").params.willRetry).toBe(false);
    expect(server.messages.filter((m) => m.method === "thread/status/changed").at(-1).params.status).toEqual({ type: "systemError" });
  });

  it("retries a 500 with a Reconnecting notice, then succeeds", async () => {
    const { server, mock } = await launch(
      [{ httpStatus: 500 }, { items: [{ type: "message", text: "Recovered." }] }],
      { streamRetries: 2 },
    );
    const threadId = await startThread(server);
    const { completed } = await runTurn(server, threadId, "Hi");
    expect(completed.params.turn.status).toBe("completed");
    expect(mock.requests).toHaveLength(2);
    const notice = server.messages.find((m) => m.method === "error");
    expect(notice.params).toMatchObject({ willRetry: true, error: { message: "Reconnecting... 1/2" } });
  });

  it("retries silently at the HTTP level first, honouring Retry-After", async () => {
    const { server, mock } = await launch(
      [{ httpStatus: 429, headers: { "retry-after-ms": "50" } }, { items: [{ type: "message", text: "ok" }] }],
      { requestRetries: 1 },
    );
    const threadId = await startThread(server);
    const { completed } = await runTurn(server, threadId, "Hi");
    expect(completed.params.turn.status).toBe("completed");
    expect(mock.requests).toHaveLength(2);
    expect(server.messages.some((m) => m.method === "error")).toBe(false);
  });

  it("fails the turn when 500s outlast the retries", async () => {
    const { server, mock } = await launch(
      [{ httpStatus: 500 }, { httpStatus: 500 }, { httpStatus: 500 }, { httpStatus: 500 }],
      { requestRetries: 1, streamRetries: 1 },
    );
    const threadId = await startThread(server);
    const { completed } = await runTurn(server, threadId, "Hi");
    expect(mock.requests).toHaveLength(4);
    expect(completed.params.turn.status).toBe("failed");
    expect(completed.params.turn.error).toMatchObject({ codexErrorInfo: "internalServerError" });
    const errors = server.messages.filter((m) => m.method === "error").map((m) => m.params.willRetry);
    expect(errors).toEqual([true, false]);
  });

  it("fails at once with the provider's message on a 400", async () => {
    const { server, mock } = await launch([
      { httpStatus: 400, errorBody: { error: { message: "Unsupported parameter: 'foo'.", type: "invalid_request_error" } } },
    ], { requestRetries: 3, streamRetries: 3 });
    const threadId = await startThread(server);
    const { completed } = await runTurn(server, threadId, "Hi");
    expect(mock.requests).toHaveLength(1);
    expect(completed.params.turn.error).toMatchObject({ codexErrorInfo: "badRequest" });
    expect(completed.params.turn.error.message).toContain("Unsupported parameter: 'foo'.");
  });

  it("retries a stream cut mid-answer; the partial message is completed and a new one streams", async () => {
    const { server } = await launch(
      [
        { items: [{ type: "message", id: "msg_cut", deltas: ["Part", "ial"] }], disconnectAfter: 4 },
        { items: [{ type: "message", id: "msg_full", text: "Full answer." }] },
      ],
      { streamRetries: 1 },
    );
    const threadId = await startThread(server);
    const { completed } = await runTurn(server, threadId, "Hi");
    expect(completed.params.turn.status).toBe("completed");
    const messages = server.messages.filter((m) => m.method === "item/completed" && m.params.item.type === "agentMessage");
    expect(messages.map((m) => [m.params.item.id, m.params.item.text])).toEqual([
      ["msg_cut", "Part"],
      ["msg_full", "Full answer."],
    ]);
    expect(server.messages.find((m) => m.method === "error").params.error.codexErrorInfo).toEqual({
      responseStreamDisconnected: { httpStatusCode: null },
    });
  });

  it("retries a response.failed after the events before it went out; a context overflow fails the turn at once", async () => {
    const { server } = await launch(
      [
        { items: [{ type: "message", id: "msg_first", deltas: ["Half", " way."] }], failed: { message: "upstream broke" } },
        { items: [{ type: "message", id: "msg_retry", text: "Done." }] },
        { items: [{ type: "message", id: "msg_long", text: "Too" }], failed: { code: "context_length_exceeded", message: "too long" } },
      ],
      { streamRetries: 1 },
    );
    const threadId = await startThread(server);
    const first = await runTurn(server, threadId, "Hi");
    expect(first.completed.params.turn.status).toBe("completed");
    const relevant = server.messages.filter((m) => m.method === "error" || m.params?.itemId === "msg_first" || m.params?.item?.id === "msg_first");
    expect(relevant.map((m) => m.params.delta ?? m.params.item?.text ?? m.params.error.message)).toEqual(["", "Half", " way.", "Half way.", "Reconnecting... 1/1"]);
    expect(relevant.at(-1).params).toMatchObject({ willRetry: true, error: { additionalDetails: "upstream broke" } });
    const second = await runTurn(server, threadId, "More");
    expect(second.completed.params.turn.status).toBe("failed");
    expect(second.completed.params.turn.error.codexErrorInfo).toBe("contextWindowExceeded");
  });

  it("retries a chat stream that ends before its finish_reason", async () => {
    const { server, mock } = await launch(
      [{ items: [{ type: "message", deltas: ["Cut", " short"] }], disconnectAfter: 2 }, { items: [{ type: "message", deltas: ["Whole", "."] }] }],
      { wire: "chat", streamRetries: 1 },
    );
    const threadId = await startThread(server);
    const { completed } = await runTurn(server, threadId, "Hi");
    expect(completed.params.turn.status).toBe("completed");
    expect(mock.requests).toHaveLength(2);
    const messages = server.messages.filter((m) => m.method === "item/completed" && m.params.item.type === "agentMessage");
    expect(messages.map((m) => [m.params.item.id, m.params.item.text])).toEqual([
      ["msg_resp_1", "Cut"],
      ["msg_resp_2", "Whole."],
    ]);
    expect(server.messages.find((m) => m.method === "error").params).toMatchObject({ willRetry: true, error: { message: "Reconnecting... 1/1" } });
  });

  it("treats a stalled stream as disconnected after stream_idle_timeout_ms", async () => {
    const { server, mock } = await launch(
      [{ items: [{ type: "message", text: "never ends" }], hang: true }, { items: [{ type: "message", text: "ok" }] }],
      { streamRetries: 1, idleMs: 1000 },
    );
    const threadId = await startThread(server);
    const { completed } = await runTurn(server, threadId, "Hi");
    expect(completed.params.turn.status).toBe("completed");
    expect(mock.requests).toHaveLength(2);
    expect(server.messages.find((m) => m.method === "error").params.error.additionalDetails).toContain("idle");
  });

  it("interrupts a streaming turn at once; the partial answer stays in history", async () => {
    const { server, mock } = await launch([
      { deltaDelayMs: 100, items: [{ type: "message", repeat: 200, delta: "slow " }] },
      { items: [{ type: "message", text: "Next." }] },
    ]);
    const threadId = await startThread(server);
    const started = await server.request("turn/start", { threadId, input: [{ type: "text", text: "Long." }] });
    const turnId = started.result.turn.id;
    await server.waitFor((m) => m.method === "item/agentMessage/delta");
    const interrupt = await server.request("turn/interrupt", { threadId, turnId });
    expect(interrupt.result).toEqual({});
    const completed = await server.waitFor((m) => m.method === "turn/completed");
    // The scripted answer would stream for 20 s; the turn ended long before (no timed assertion: bench/ measures speed).
    expect(server.messages.filter((m) => m.method === "item/agentMessage/delta").length).toBeLessThan(200);
    expect(completed.params.turn).toMatchObject({ status: "interrupted", items: [], itemsView: "notLoaded" });
    const order = server.messages.slice(server.messages.indexOf(interrupt)).map((m) => m.method ?? "response").filter((m) => m !== "item/agentMessage/delta");
    expect(order.slice(0, 4)).toEqual(["response", "item/completed", "thread/status/changed", "turn/completed"]);
    const again = await server.request("turn/interrupt", { threadId, turnId });
    expect(again.error).toMatchObject({ code: -32600, message: "no active turn to interrupt" });
    await runTurn(server, threadId, "Go on.");
    const input = mock.requests[1]!.body.input as any[];
    const texts = input.map((item) => item.content?.[0]?.text ?? "");
    expect(texts.some((text) => text.startsWith("slow"))).toBe(true);
    expect(texts.some((text) => text.includes("<turn_aborted>"))).toBe(true);
  });

  it("steers input into the running turn, and turn/start on a busy thread steers too: each cuts the response in flight", async () => {
    const { server, mock } = await launch([
      { deltaDelayMs: 100, items: [{ type: "message", repeat: 40, delta: "a" }] },
      { deltaDelayMs: 100, items: [{ type: "message", repeat: 40, delta: "b" }] },
      { items: [{ type: "message", text: "Steered answer." }] },
    ]);
    const threadId = await startThread(server);
    const started = await server.request("turn/start", { threadId, input: [{ type: "text", text: "Start." }] });
    const turnId = started.result.turn.id;
    await server.waitFor((m) => m.method === "item/agentMessage/delta");
    const wrong = await server.request("turn/steer", { threadId, expectedTurnId: "bogus", input: [{ type: "text", text: "x" }] });
    expect(wrong.error).toMatchObject({ code: -32600, message: `expected active turn id \`bogus\` but found \`${turnId}\`` });
    const steer = await server.request("turn/steer", { threadId, expectedTurnId: turnId, input: [{ type: "text", text: "Also this." }] });
    expect(steer.result).toEqual({ turnId });
    await server.waitFor((m) => m.method === "item/agentMessage/delta" && m.params.itemId === "msg_resp_2_0");
    const again = await server.request("turn/start", { threadId, input: [{ type: "text", text: "And that." }] });
    expect(again.result.turn).toMatchObject({ id: turnId, status: "inProgress", items: [], itemsView: "notLoaded", startedAt: null });
    const completed = await server.waitFor((m) => m.method === "turn/completed");
    expect(completed.params.turn.items[0].text).toBe("Steered answer.");
    expect(server.messages.filter((m) => m.method === "turn/started")).toHaveLength(1);
    const users = server.messages.filter((m) => m.method === "item/completed" && m.params.item.type === "userMessage");
    expect(users.map((m) => m.params.item.content[0].text)).toEqual(["Start.", "Also this.", "And that."]);
    // The cut answers never complete and never reach the model again (Codex drops them too).
    const answers = server.messages.filter((m) => m.method === "item/completed" && m.params.item.type === "agentMessage");
    expect(answers.map((m) => m.params.item.id)).toEqual(["msg_resp_3_0"]);
    const texts = (index: number) => (mock.requests[index]!.body.input as any[]).map((item) => item.content?.[0]?.text ?? item.type);
    expect(texts(1).slice(-2)).toEqual(["Start.", "Also this."]);
    expect(texts(2).slice(-3)).toEqual(["Start.", "Also this.", "And that."]);
    const idle = await server.request("turn/steer", { threadId, expectedTurnId: turnId, input: [{ type: "text", text: "late" }] });
    expect(idle.error).toMatchObject({ code: -32600, message: "no active turn to steer" });
  });

  it("keeps the turn on disk: after a restart, read and resume show it and the next request carries it", async () => {
    const home = tempDir("aas-home-");
    const mock = await startMockModel({
      responses: [
        { items: [{ type: "message", deltas: ["Remember ", "42."] }] },
        { items: [{ type: "message", text: "It was 42." }] },
      ],
    });
    mocks.push(mock);
    const first = await launch([], { home, mock });
    const threadId = await startThread(first.server);
    const { turnId } = await runTurn(first.server, threadId, "Remember 42.");
    expect((await first.server.closeStdin()).code).toBe(0);

    const second = await launch([], { home, mock });
    const read = await second.server.request("thread/read", { threadId, includeTurns: true });
    expect(read.result.thread.preview).toBe("Remember 42.");
    expect(read.result.thread.turns).toHaveLength(1);
    expect(read.result.thread.turns[0]).toMatchObject({ id: turnId, status: "completed" });
    expect(read.result.thread.turns[0].items.map((item: any) => item.type)).toEqual(["userMessage", "agentMessage"]);
    const resumed = await second.server.request("thread/resume", { threadId });
    expect(resumed.result.thread.turns[0].items[1].text).toBe("Remember 42.");
    const replayed = await second.server.waitFor((m) => m.method === "thread/tokenUsage/updated");
    expect(replayed.params.turnId).toBe(turnId);
    await runTurn(second.server, threadId, "What was it?");
    const texts = (mock.requests[1]!.body.input as any[]).map((item) => item.content?.[0]?.text);
    expect(texts.slice(-3)).toEqual(["Remember 42.", "Remember 42.", "What was it?"]);
  });

  it("tracks unread turns on disk: thread/read, thread/list and a restart show them; a fork starts read", async () => {
    const home = tempDir("aas-home-");
    const mock = await startMockModel({ responses: [{ items: [{ type: "message", text: "One." }] }, { items: [{ type: "message", text: "Two." }] }] });
    mocks.push(mock);
    const first = await launch([], { home, mock, capabilities: { experimentalApi: true } });
    const threadId = await startThread(first.server);
    const readState = async (server: ServerProcess) => (await server.request("thread/read", { threadId })).result.readState;
    const listed = async (server: ServerProcess) => (await server.request("thread/list", {})).result.readStates[threadId];
    expect(await readState(first.server)).toEqual({ firstUnread: null, revision: "0" });
    const one = await runTurn(first.server, threadId, "First.");
    await runTurn(first.server, threadId, "Second.");
    const unread = { firstUnread: { type: "turn", turnId: one.turnId }, revision: "2" };
    expect(await readState(first.server)).toEqual(unread);
    expect(await listed(first.server)).toEqual(unread);
    const stale = await first.server.request("thread/readState/update", { threadId, operation: { type: "read" }, expectedRevision: "1" });
    expect(stale.error.message).toContain("is at revision 2, not 1");
    const marked = await first.server.request("thread/readState/update", { threadId, operation: { type: "read" }, expectedRevision: "2" });
    expect(marked.result.readState).toEqual({ firstUnread: null, revision: "3" });
    expect((await first.server.closeStdin()).code).toBe(0);

    const second = await launch([], { home, mock });
    expect(await readState(second.server)).toEqual({ firstUnread: null, revision: "3" });
    expect(await listed(second.server)).toEqual({ firstUnread: null, revision: "3" });
    const forked = await second.server.request("thread/fork", { threadId, excludeTurns: true });
    const forkRead = await second.server.request("thread/read", { threadId: forked.result.thread.id });
    expect(forkRead.result.readState.firstUnread).toBeNull();
    const ephemeral = await second.server.request("thread/start", { ephemeral: true });
    expect((await second.server.request("thread/read", { threadId: ephemeral.result.thread.id })).result.readState).toBeNull();
  });

  it("forks with the model history up to a turn, then the fork and the source diverge", async () => {
    const { server, mock } = await launch([
      { items: [{ type: "message", text: "A1" }] },
      { items: [{ type: "message", text: "A2" }] },
      { items: [{ type: "message", text: "F3" }] },
      { items: [{ type: "message", text: "S3" }] },
    ]);
    const source = await startThread(server);
    const first = await runTurn(server, source, "Q1");
    await runTurn(server, source, "Q2");
    const unknownTurn = await server.request("thread/fork", { threadId: source, lastTurnId: "00000000-0000-7000-8000-000000000000" });
    expect(unknownTurn.error).toMatchObject({ code: -32600, message: expect.stringMatching(/is not a turn of thread/) });
    const forked = await server.request("thread/fork", { threadId: source, lastTurnId: first.turnId });
    const fork = forked.result.thread.id;
    expect(forked.result.thread.turns.map((turn: any) => turn.id)).toEqual([first.turnId]);
    await runTurn(server, fork, "Q3 fork");
    await runTurn(server, source, "Q3 source");
    const texts = (index: number) =>
      (mock.requests[index]!.body.input as any[]).map((item) => item.content?.[0]?.text).filter((text) => !text?.startsWith("<environment"));
    expect(texts(2)).toEqual(["Q1", "A1", "Q3 fork"]);
    expect(texts(3)).toEqual(["Q1", "A1", "Q2", "A2", "Q3 source"]);
    const page = await server.request("thread/turns/list", { threadId: source, limit: 2 });
    expect(page.result.data.map((turn: any) => turn.items.map((item: any) => item.text ?? item.content[0].text))).toEqual([
      ["Q3 source", "S3"],
      ["Q2", "A2"],
    ]);
    expect(page.result.nextCursor).not.toBeNull();
  });

  it("shows a turn cut off by a kill as interrupted, and goes on", async () => {
    const home = tempDir("aas-home-");
    const mock = await startMockModel({ responses: [{ items: [{ type: "message", text: "never" }], hang: true }] });
    mocks.push(mock);
    const first = await launch([], { home, mock });
    const threadId = await startThread(first.server);
    await first.server.request("turn/start", { threadId, input: [{ type: "text", text: "Hang." }] });
    await first.server.waitFor((m) => m.method === "item/started" && m.params.item.type === "agentMessage");
    await first.server.signal("SIGKILL");
    first.server.messages.length = 0;
    const second = await launch([], { home, mock });
    const read = await second.server.request("thread/read", { threadId, includeTurns: true });
    expect(read.result.thread.turns.map((turn: any) => turn.status)).toEqual(["interrupted"]);
    mock.push({ items: [{ type: "message", text: "Back." }] });
    await second.server.request("thread/resume", { threadId });
    const { completed } = await runTurn(second.server, threadId, "Again.");
    expect(completed.params.turn.status).toBe("completed");
  });

  it("applies per-turn overrides for this and later turns, and outputSchema for this turn only", async () => {
    const { server, mock } = await launch([{ items: [{ type: "message", text: "{}" }] }, { items: [{ type: "message", text: "x" }] }]);
    const threadId = await startThread(server);
    const schema = { type: "object", properties: { answer: { type: "string" } }, required: ["answer"], additionalProperties: false };
    await runTurn(server, threadId, "One.", { model: "other-model", effort: "high", summary: "concise", outputSchema: schema });
    await runTurn(server, threadId, "Two.");
    const [one, two] = mock.requests.map((request) => request.body);
    expect(one).toMatchObject({ model: "other-model", reasoning: { effort: "high", summary: "concise" }, text: { format: { type: "json_schema", name: "codex_output_schema", strict: true, schema } } });
    expect(two).toMatchObject({ model: "other-model", reasoning: { effort: "high", summary: "concise" } });
    expect(two!.text).toBeUndefined();
    const read = await server.request("thread/resume", { threadId });
    expect(read.result.model).toBe("other-model");
  });

  it("sends the user's AGENTS.md in the home, then AGENTS.md files from the repository root down to the cwd", async () => {
    const repo = tempDir("aas-repo-");
    mkdirSync(path.join(repo, ".git"));
    mkdirSync(path.join(repo, "pkg"));
    writeFileSync(path.join(repo, "AGENTS.md"), "Root rule.");
    writeFileSync(path.join(repo, "pkg", "AGENTS.md"), "Package rule.");
    const { server, mock } = await launch([{ items: [{ type: "message", text: "ok" }] }]);
    writeFileSync(path.join(server.home, "AGENTS.md"), "User rule.");
    const threadId = await startThread(server, { cwd: path.join(repo, "pkg") });
    await runTurn(server, threadId, "Hi");
    const text = JSON.stringify(mock.requests[0]!.body.input);
    expect(text.indexOf("User rule.")).toBeGreaterThan(-1);
    expect(text.indexOf("User rule.")).toBeLessThan(text.indexOf("Root rule."));
    expect(text.indexOf("Root rule.")).toBeLessThan(text.indexOf("Package rule."));
  });

  it("sends images: data URLs as given, local files read into data URLs; remote URLs are refused", async () => {
    const dir = tempDir("aas-img-");
    const png = path.join(dir, "dot.png");
    writeFileSync(png, Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    const { server, mock } = await launch([{ items: [{ type: "message", text: "I see." }] }]);
    const threadId = await startThread(server);
    const remote = await server.request("turn/start", { threadId, input: [{ type: "image", url: "https://example.com/a.png" }] });
    expect(remote.error).toMatchObject({ code: -32600, message: "remote image URLs are not supported; use an inline data URL instead" });
    await runTurn(server, threadId, "Look.", {
      input: [
        { type: "text", text: "Look." },
        { type: "image", url: "data:image/png;base64,AAAA" },
        { type: "localImage", path: png },
      ],
    });
    const content = (mock.requests[0]!.body.input as any[]).at(-1).content;
    expect(content[1]).toEqual({ type: "input_image", image_url: "data:image/png;base64,AAAA" });
    expect(content.find((part: any) => part.type === "input_image" && part.image_url.startsWith("data:image/png;base64,iVBORw"))).toBeDefined();
  });

  it("refuses turn/start on a thread that is not loaded, and interrupts of another turn", async () => {
    const { server } = await launch([{ deltaDelayMs: 50, items: [{ type: "message", repeat: 20, delta: "x" }] }]);
    const missing = await server.request("turn/start", { threadId: "01900000-0000-7000-8000-000000000000", input: [] });
    expect(missing.error).toMatchObject({ code: -32600, message: "thread not found: 01900000-0000-7000-8000-000000000000" });
    const threadId = await startThread(server);
    const idle = await server.request("turn/interrupt", { threadId, turnId: "t" });
    expect(idle.error).toMatchObject({ code: -32600, message: "no active turn to interrupt" });
    const started = await server.request("turn/start", { threadId, input: [{ type: "text", text: "Go." }] });
    const wrong = await server.request("turn/interrupt", { threadId, turnId: "wrong-turn-id" });
    expect(wrong.error.message).toBe(`expected active turn id wrong-turn-id but found ${started.result.turn.id}`);
    await server.request("turn/interrupt", { threadId, turnId: started.result.turn.id });
    await server.waitFor((m) => m.method === "turn/completed");
  });

  it("interrupts running turns when the server stops, so each still completes once", async () => {
    const { server } = await launch([{ items: [{ type: "message", text: "never" }], hang: true }]);
    const threadId = await startThread(server);
    await server.request("turn/start", { threadId, input: [{ type: "text", text: "Hang." }] });
    await server.waitFor((m) => m.method === "item/started" && m.params.item.type === "agentMessage");
    expect((await server.closeStdin()).code).toBe(0);
    const completed = server.messages.filter((m) => m.method === "turn/completed");
    expect(completed.map((m) => m.params.turn.status)).toEqual(["interrupted"]);
  });
});
