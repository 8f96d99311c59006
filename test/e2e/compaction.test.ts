import { describe, expect, it } from "vitest";
import type { MockResponseInput } from "../../src/testing/index.js";
import { launch, runTurn, startThread, tempDir } from "../support/turnHarness.js";

/** The text of every input message of a model request, in order. */
function inputTexts(body: Record<string, unknown>): string[] {
  return (body.input as any[]).filter((item) => item.type === "message").flatMap((item) => item.content.map((part: any) => part.text ?? ""));
}

function isCompactionRequest(body: Record<string, unknown>): boolean {
  return inputTexts(body).at(-1)!.startsWith("CONTEXT CHECKPOINT COMPACTION");
}

describe("compaction", () => {
  it("compacts automatically once the context passes model_auto_compact_token_limit; later turns carry the summary", async () => {
    const { server, mock } = await launch(
      [
        { items: [{ type: "message", text: "A long first answer about the parser." }], usage: { input_tokens: 5000, output_tokens: 20 } },
        { items: [{ type: "message", text: "The user is fixing the parser; tests pass." }], usage: { input_tokens: 5100, output_tokens: 15 } },
        { items: [{ type: "message", text: "Second answer." }], usage: { input_tokens: 80, output_tokens: 5 } },
        { items: [{ type: "message", text: "Third answer." }], usage: { input_tokens: 90, output_tokens: 5 } },
      ],
      { args: ["-c", "model_auto_compact_token_limit=1000"] },
    );
    const threadId = await startThread(server);
    await runTurn(server, threadId, "Fix the parser.");
    const second = await runTurn(server, threadId, "Now add a test.");
    expect(second.completed.params.turn.status).toBe("completed");

    const summaryRequest = mock.requests[1]!.body;
    expect(isCompactionRequest(summaryRequest)).toBe(true);
    expect(summaryRequest.tools ?? []).toEqual([]);
    expect(inputTexts(summaryRequest)).toContain("A long first answer about the parser.");

    const after = inputTexts(mock.requests[2]!.body);
    expect(after).toContain("Fix the parser.");
    expect(after).toContain("Now add a test.");
    expect(after.some((text) => text.includes("The user is fixing the parser; tests pass."))).toBe(true);
    expect(after).not.toContain("A long first answer about the parser.");

    // In the second turn: the compaction item, thread/compacted, then the answer.
    const turnId = second.turnId;
    const inTurn = server.messages.filter((m) => m.params?.turnId === turnId && m.method);
    const started = inTurn.findIndex((m) => m.method === "item/started" && m.params.item.type === "contextCompaction");
    const compacted = inTurn.findIndex((m) => m.method === "thread/compacted");
    const completed = inTurn.findIndex((m) => m.method === "item/completed" && m.params.item.type === "contextCompaction");
    const answer = inTurn.findIndex((m) => m.method === "item/completed" && m.params.item.type === "agentMessage");
    expect(started).toBeGreaterThan(-1);
    expect([started < compacted, compacted < completed, completed < answer]).toEqual([true, true, true]);

    // The next turn is small again: no second compaction, and the first answer stays gone.
    await runTurn(server, threadId, "Thanks.");
    expect(mock.requests).toHaveLength(4);
    expect(isCompactionRequest(mock.requests[3]!.body)).toBe(false);
    expect(inputTexts(mock.requests[3]!.body)).not.toContain("A long first answer about the parser.");
  });

  it("compacts on thread/compact/start as a turn of its own, and the history stays compacted after a restart", async () => {
    const responses: MockResponseInput[] = [
      { items: [{ type: "message", text: "Old details nobody needs." }] },
      { items: [{ type: "message", text: "Summary: the user wants a haiku." }] },
    ];
    const home = tempDir("aas-home-");
    const { server, mock } = await launch(responses, { home });
    const threadId = await startThread(server);
    await runTurn(server, threadId, "Write a haiku.");
    const answer = await server.request("thread/compact/start", { threadId });
    expect(answer.result).toEqual({});
    const done = await server.waitFor((m) => m.method === "turn/completed" && m.params.turn.id !== server.messages.find((x) => x.method === "turn/completed")?.params.turn.id, "the compaction turn");
    expect(done.params.turn.status).toBe("completed");
    const items = server.messages.filter((m) => m.method === "item/completed" && m.params.turnId === done.params.turn.id).map((m) => m.params.item.type);
    expect(items).toEqual(["contextCompaction"]);
    expect(isCompactionRequest(mock.requests[1]!.body)).toBe(true);
    const steer = await server.request("turn/steer", { threadId, expectedTurnId: done.params.turn.id, input: [{ type: "text", text: "late" }] });
    expect(steer.error?.code).toBe(-32600);

    await server.stop();
    const again = await launch([{ items: [{ type: "message", text: "Here it is." }] }], { home });
    expect((await again.server.request("thread/resume", { threadId })).error).toBeUndefined();
    await runTurn(again.server, threadId, "Go on.");
    const texts = inputTexts(again.mock.requests[0]!.body);
    expect(texts.some((text) => text.includes("Summary: the user wants a haiku."))).toBe(true);
    expect(texts).not.toContain("Old details nobody needs.");
    expect(texts).toContain("Write a haiku.");
  });
});
