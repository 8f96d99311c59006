import { describe, expect, it } from "vitest";
import { launch, runTurn, startThread, tempDir } from "../support/turnHarness.js";

describe("thread goals", () => {
  it("sets, gets and clears a goal, charges turns with their tokens, and stops new turns once the budget is spent", async () => {
    const home = tempDir("aas-home-");
    const { server } = await launch(
      [
        { items: [{ type: "message", text: "Step one." }], usage: { input_tokens: 600, output_tokens: 100 } },
        { items: [{ type: "message", text: "Step two." }], usage: { input_tokens: 700, output_tokens: 100 } },
        { items: [{ type: "message", text: "Step three." }], usage: { input_tokens: 10, output_tokens: 5 } },
      ],
      { home },
    );
    const threadId = await startThread(server);
    expect((await server.request("thread/goal/get", { threadId })).result.goal ?? null).toBeNull();
    const noObjective = await server.request("thread/goal/set", { threadId, status: "paused" });
    expect(noObjective.error.code).toBe(-32600);

    const set = await server.request("thread/goal/set", { threadId, objective: "Ship the parser", tokenBudget: 1000 });
    expect(set.result.goal).toMatchObject({ threadId, objective: "Ship the parser", status: "active", tokenBudget: 1000, tokensUsed: 0, timeUsedSeconds: 0 });
    await server.waitFor((m) => m.method === "thread/goal/updated" && m.params.turnId === null, "thread/goal/updated");

    const first = await runTurn(server, threadId, "Start.");
    const charged = server.messages.find((m) => m.method === "thread/goal/updated" && m.params.turnId === first.turnId);
    expect(charged.params.goal).toMatchObject({ tokensUsed: 700, status: "active" });
    expect(server.messages.indexOf(charged)).toBeLessThan(server.messages.indexOf(first.completed));

    const second = await runTurn(server, threadId, "Continue.");
    const limited = server.messages.find((m) => m.method === "thread/goal/updated" && m.params.turnId === second.turnId);
    expect(limited.params.goal).toMatchObject({ tokensUsed: 1500, status: "budgetLimited" });

    const refused = await server.request("turn/start", { threadId, input: [{ type: "text", text: "More." }] });
    expect(refused.error.code).toBe(-32600);
    expect(refused.error.message).toMatch(/used its token budget \(1500 of 1000 tokens\)/);

    // The goal is stored with the thread: a restarted server still knows it and still refuses.
    await server.stop();
    const again = await launch([{ items: [{ type: "message", text: "Step three." }] }], { home });
    expect((await again.server.request("thread/goal/get", { threadId })).result.goal).toMatchObject({ tokensUsed: 1500, status: "budgetLimited" });
    await again.server.request("thread/resume", { threadId });
    expect((await again.server.request("turn/start", { threadId, input: [{ type: "text", text: "More." }] })).error.code).toBe(-32600);

    // The client's say: a bigger budget lets turns run again.
    const raised = await again.server.request("thread/goal/set", { threadId, tokenBudget: 5000 });
    expect(raised.result.goal).toMatchObject({ status: "active", tokenBudget: 5000, tokensUsed: 1500 });
    const third = await runTurn(again.server, threadId, "More.");
    expect(third.completed.params.turn.status).toBe("completed");

    expect((await again.server.request("thread/goal/clear", { threadId })).result).toEqual({ cleared: true });
    await again.server.waitFor((m) => m.method === "thread/goal/cleared", "thread/goal/cleared");
    expect((await again.server.request("thread/goal/clear", { threadId })).result).toEqual({ cleared: false });
    expect((await again.server.request("thread/goal/get", { threadId })).result.goal ?? null).toBeNull();
  });

  it("does not charge a paused goal", async () => {
    const { server } = await launch([{ items: [{ type: "message", text: "Hi." }], usage: { input_tokens: 50, output_tokens: 5 } }]);
    const threadId = await startThread(server);
    await server.request("thread/goal/set", { threadId, objective: "Later", status: "paused" });
    await runTurn(server, threadId, "Hello.");
    expect((await server.request("thread/goal/get", { threadId })).result.goal).toMatchObject({ status: "paused", tokensUsed: 0 });
  });
});
