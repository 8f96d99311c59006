import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { collapse, launch, runTurn, sequence, startThread, tempDir } from "../support/turnHarness.js";

/** The texts (or item types) of a model request's input. */
function inputOf(body: Record<string, unknown>): string[] {
  return (body.input as any[]).map((item) => item.content?.[0]?.text ?? item.type);
}

/** A repository with one committed file changed in the work tree: something to review. */
function changedRepository(): string {
  const dir = tempDir("aas-steer-review-");
  const git = (...args: string[]) => execFileSync("git", args, { cwd: dir, env: { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@e", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@e" } });
  git("init", "-q", "-b", "main");
  writeFileSync(path.join(dir, "a.txt"), "one\n");
  git("add", ".");
  git("commit", "-q", "-m", "first");
  writeFileSync(path.join(dir, "a.txt"), "two\n");
  return dir;
}

// Codex 0.169 (probed): queued input cuts the sampling request in flight at once; the partly
// streamed agent message gets no more deltas, never `item/completed`, and no place in the history.
describe("input steered into a running turn", () => {
  it("turn/start cuts the stream at once: the partial answer is dropped, the input joins the same turn, the model is asked again", async () => {
    const { server, mock } = await launch([
      { deltaDelayMs: 150, items: [{ type: "message", repeat: 40, delta: "slow " }] },
      { items: [{ type: "message", text: "Answer after turn/start steer." }] },
    ]);
    const threadId = await startThread(server);
    const started = await server.request("turn/start", { threadId, input: [{ type: "text", text: "First question." }] });
    const turnId = started.result.turn.id;
    await server.waitFor((m) => m.method === "item/agentMessage/delta");
    const injected = await server.request("turn/start", { threadId, input: [{ type: "text", text: "Injected via turn/start." }] });
    expect(injected.result.turn).toEqual({ ...started.result.turn, id: turnId });
    const completed = await server.waitFor((m) => m.method === "turn/completed");
    expect(completed.params.turn).toMatchObject({ id: turnId, status: "completed", items: [expect.objectContaining({ text: "Answer after turn/start steer." })] });
    // The 6 s answer was cut at once: the mock saw its client go away and was asked again.
    await mock.waitForClosedStreams(2_000);
    expect(mock.requests).toHaveLength(2);
    const partialDeltas = server.messages.filter((m) => m.method === "item/agentMessage/delta" && m.params.itemId === "msg_resp_1_0");
    expect(partialDeltas.length).toBeLessThan(40);
    const afterResponse = server.messages.slice(server.messages.indexOf(injected));
    expect(afterResponse.some((m) => m.params?.itemId === "msg_resp_1_0" || m.params?.item?.id === "msg_resp_1_0")).toBe(false);
    expect(collapse(sequence(server, turnId))).toEqual([
      "thread/status/changed",
      "turn/started",
      "item/started:userMessage",
      "item/completed:userMessage",
      "item/started:agentMessage",
      "item/agentMessage/delta",
      "item/started:userMessage",
      "item/completed:userMessage",
      "item/started:agentMessage",
      "item/agentMessage/delta",
      "item/completed:agentMessage",
      "thread/tokenUsage/updated",
      "thread/status/changed",
      "turn/completed",
    ]);
    const next = inputOf(mock.requests[1]!.body);
    expect(next.slice(-2)).toEqual(["First question.", "Injected via turn/start."]);
    expect(next.some((text) => text.startsWith("slow") || text.includes("<turn_aborted>"))).toBe(false);
    const read = await server.request("thread/read", { threadId, includeTurns: true });
    expect(read.result.thread.turns[0].items.map((item: any) => item.text ?? item.content[0].text)).toEqual([
      "First question.",
      "Injected via turn/start.",
      "Answer after turn/start steer.",
    ]);
  });

  it("turn/steer keeps output that finished before the cut, and its userMessage echoes clientUserMessageId", async () => {
    const { server, mock } = await launch([
      { deltaDelayMs: 150, items: [{ type: "reasoning", summary: ["Thinking about it."], encryptedContent: "enc" }, { type: "message", repeat: 40, delta: "slow " }] },
      { items: [{ type: "message", text: "Answer after steer." }] },
    ]);
    const threadId = await startThread(server);
    const started = await server.request("turn/start", { threadId, input: [{ type: "text", text: "First question." }] });
    const turnId = started.result.turn.id;
    await server.waitFor((m) => m.method === "item/agentMessage/delta");
    const steer = await server.request("turn/steer", {
      threadId,
      expectedTurnId: turnId,
      clientUserMessageId: "cm-1",
      input: [{ type: "text", text: "Steered." }],
    });
    expect(steer.result).toEqual({ turnId });
    await server.waitFor((m) => m.method === "turn/completed");
    const steered = server.messages.filter((m) => m.method?.startsWith("item/") && m.params.item?.type === "userMessage" && m.params.item.content[0].text === "Steered.");
    expect(steered.map((m) => [m.method, m.params.turnId, m.params.item.clientId])).toEqual([
      ["item/started", turnId, "cm-1"],
      ["item/completed", turnId, "cm-1"],
    ]);
    expect(inputOf(mock.requests[1]!.body).slice(-3)).toEqual(["First question.", "reasoning", "Steered."]);
    const read = await server.request("thread/read", { threadId, includeTurns: true });
    expect(read.result.thread.turns[0].items.map((item: any) => item.type)).toEqual(["userMessage", "reasoning", "userMessage", "agentMessage"]);
  });

  it("reports the turn's usage again at the cut, before the steered input, as Codex", async () => {
    const { server } = await launch([
      { items: [{ type: "exec", cmd: "echo hi", callId: "call_1" }] },
      { deltaDelayMs: 150, items: [{ type: "message", repeat: 40, delta: "slow " }] },
      { items: [{ type: "message", text: "Answer after steer." }] },
    ], { sandbox: "danger-full-access" });
    const threadId = await startThread(server);
    const started = await server.request("turn/start", { threadId, input: [{ type: "text", text: "First question." }] });
    const turnId = started.result.turn.id;
    await server.waitFor((m) => m.method === "item/agentMessage/delta");
    await server.request("turn/steer", { threadId, expectedTurnId: turnId, input: [{ type: "text", text: "Steered." }] });
    await server.waitFor((m) => m.method === "turn/completed");
    const events = collapse(sequence(server, turnId));
    const steeredAt = events.lastIndexOf("item/started:userMessage");
    expect(events.slice(steeredAt - 2, steeredAt + 1)).toEqual(["item/agentMessage/delta", "thread/tokenUsage/updated", "item/started:userMessage"]);
    const usages = server.messages.filter((m) => m.method === "thread/tokenUsage/updated");
    expect(usages[1].params.tokenUsage).toEqual(usages[0].params.tokenUsage);
  });

  it("refuses empty input while a turn runs, Codex's way, and the turn goes on untouched", async () => {
    const { server, mock } = await launch([{ deltaDelayMs: 100, items: [{ type: "message", repeat: 8, delta: "slow " }] }]);
    const threadId = await startThread(server);
    const started = await server.request("turn/start", { threadId, input: [{ type: "text", text: "Q" }] });
    const turnId = started.result.turn.id;
    await server.waitFor((m) => m.method === "item/agentMessage/delta");
    const steer = await server.request("turn/steer", { threadId, expectedTurnId: turnId, input: [] });
    expect(steer.error).toEqual({ code: -32600, message: "input must not be empty" });
    const start = await server.request("turn/start", { threadId, input: [] });
    expect(start.error).toEqual({ code: -32603, message: "failed to submit turn input: EmptyInput" });
    const completed = await server.waitFor((m) => m.method === "turn/completed");
    expect(completed.params.turn.items[0].text).toBe("slow ".repeat(8));
    expect(mock.requests).toHaveLength(1);
    const idle = await server.request("turn/steer", { threadId, expectedTurnId: turnId, input: [{ type: "text", text: "late" }] });
    expect(idle.error).toEqual({ code: -32600, message: "no active turn to steer" });
  });

  it("cuts the wait before a retry short: the queued input goes to a fresh request at once", async () => {
    const { server, mock } = await launch(
      [
        { httpStatus: 500, headers: { "retry-after": "60" } },
        { items: [{ type: "message", text: "Answer after steer." }] },
      ],
      { streamRetries: 1 },
    );
    const threadId = await startThread(server);
    const started = await server.request("turn/start", { threadId, input: [{ type: "text", text: "Q" }] });
    await server.waitFor((m) => m.method === "error" && m.params.willRetry === true);
    await server.request("turn/steer", { threadId, expectedTurnId: started.result.turn.id, input: [{ type: "text", text: "Steered." }] });
    // The retry was due in 60 s: well past this test's timeout.
    const completed = await server.waitFor((m) => m.method === "turn/completed");
    expect(completed.params.turn).toMatchObject({ status: "completed", items: [expect.objectContaining({ text: "Answer after steer." })] });
    expect(inputOf(mock.requests[1]!.body).slice(-2)).toEqual(["Q", "Steered."]);
  });

  it("refuses to steer review and compact turns with Codex's activeTurnNotSteerable error", async () => {
    const cwd = changedRepository();
    const { server } = await launch([
      { items: [{ type: "message", text: "Earlier chat." }] },
      { deltaDelayMs: 100, items: [{ type: "message", repeat: 10, delta: "Summary " }] },
      { deltaDelayMs: 100, items: [{ type: "message", repeat: 10, delta: "Review " }] },
    ]);
    const threadId = await startThread(server, { cwd });
    await runTurn(server, threadId, "Hello.");
    expect((await server.request("thread/compact/start", { threadId })).result).toEqual({});
    const compacting = await server.waitFor((m) => m.method === "turn/started" && m.params.turn.id !== server.messages.find((x) => x.method === "turn/started").params.turn.id);
    const compactTurn = compacting.params.turn.id;
    // Codex's refusal, in the message and in the error's data.
    const expectNotSteerable = async (turnId: string, turnKind: string) => {
      const refused = await server.request("turn/steer", { threadId, expectedTurnId: turnId, input: [{ type: "text", text: "x" }] });
      const message = `cannot steer a ${turnKind} turn`;
      expect(refused.error).toEqual({ code: -32600, message, data: { message, codexErrorInfo: { activeTurnNotSteerable: { turnKind } }, additionalDetails: null } });
    };
    await expectNotSteerable(compactTurn, "compact");
    await server.waitFor((m) => m.method === "turn/completed" && m.params.turn.id === compactTurn);
    const review = await server.request("review/start", { threadId, target: { type: "uncommittedChanges" } });
    const reviewTurn = review.result.turn.id;
    await expectNotSteerable(reviewTurn, "review");
    await server.waitFor((m) => m.method === "turn/completed" && m.params.turn.id === reviewTurn);
  });
});
