import { afterEach, describe, expect, it } from "vitest";
import type { Tool } from "../../src/agent/tools/tool.js";
import type { MockModel, MockResponseInput } from "../../src/testing/index.js";
import { inProcessServer } from "../support/inProcessServer.js";
import type { MessageLog } from "../support/messageLog.js";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** An in-process server (same dispatch code as stdio) with extra tools, talking to a mock model. */
async function serve(responses: MockResponseInput[], tools: Tool[]): Promise<{ log: MessageLog; request: (method: string, params: object) => Promise<any>; mock: MockModel }> {
  const { input, log, mock } = await inProcessServer({ responses, tools, cleanups });
  let id = 0;
  const request = (method: string, params: object) => {
    const requestId = ++id;
    input.write(JSON.stringify({ id: requestId, method, params }) + "\n");
    return log.response(requestId);
  };
  await request("initialize", { clientInfo: { name: "inproc", version: "1" } });
  return { log, request, mock };
}

function callTo(name: string) {
  return { items: [{ type: "function_call" as const, name, arguments: {}, callId: "call_1" }] };
}

describe("turn invariants", () => {
  it("a tool that throws fails the turn, which still completes exactly once", async () => {
    const broken: Tool = {
      spec: { kind: "function", name: "broken", description: "throws", parameters: { type: "object", properties: {} } },
      run: async () => {
        throw new Error("tool exploded");
      },
    };
    const { log, request } = await serve([callTo("broken")], [broken]);
    const thread = await request("thread/start", {});
    const threadId = thread.result.thread.id;
    await request("turn/start", { threadId, input: [{ type: "text", text: "Go." }] });
    const completed = await log.waitFor((m) => m.method === "turn/completed");
    expect(completed.params.turn.status).toBe("failed");
    expect(completed.params.turn.error.message).toBe("internal error: tool exploded");
    const next = await request("turn/start", { threadId, input: [{ type: "text", text: "Again." }] });
    expect(next.error).toBeUndefined();
    await log.waitFor((m) => m.method === "turn/completed" && m.params.turn.id === next.result.turn.id);
  });

  it("interrupt answers at once while a tool ignores the abort, and a second interrupt does not hang", async () => {
    let release!: () => void;
    let entered!: () => void;
    const running = new Promise<void>((resolve) => (entered = resolve));
    const stuck: Tool = {
      spec: { kind: "function", name: "stuck", description: "never returns", parameters: { type: "object", properties: {} } },
      run: () => {
        entered();
        return new Promise<string>((resolve) => (release = () => resolve("late")));
      },
    };
    const { log, request, mock } = await serve([callTo("stuck")], [stuck]);
    const threadId = (await request("thread/start", {})).result.thread.id;
    const turn = await request("turn/start", { threadId, input: [{ type: "text", text: "Go." }] });
    await running;
    const turnId = turn.result.turn.id;
    const [first, second] = await Promise.all([
      request("turn/interrupt", { threadId, turnId }),
      request("turn/interrupt", { threadId, turnId }),
    ]);
    expect(first.result).toEqual({});
    expect(second.error.message).toBe("no active turn to interrupt");
    const completed = await log.waitFor((m) => m.method === "turn/completed");
    expect(completed.params.turn.status).toBe("interrupted");
    release();
    mock.push({ items: [{ type: "message", text: "fresh" }] });
    const next = await request("turn/start", { threadId, input: [{ type: "text", text: "Next." }] });
    const done = await log.waitFor((m) => m.method === "turn/completed" && m.params.turn.id === next.result.turn.id);
    expect(done.params.turn.status).toBe("completed");
    const late = log.messages.filter((m) => m.params?.turnId === turnId && m.method === "item/completed");
    expect(late).toHaveLength(1);
  });
});

describe("steering", () => {
  it("input steered while a tool runs waits for it: the tool's output, then the userMessage, then the next model call", async () => {
    let release!: () => void;
    let entered!: () => void;
    const running = new Promise<void>((resolve) => (entered = resolve));
    const slow: Tool = {
      spec: { kind: "function", name: "slow", description: "returns when released", parameters: { type: "object", properties: {} } },
      run: () => {
        entered();
        return new Promise<string>((resolve) => (release = () => resolve("tool done")));
      },
    };
    const { log, request, mock } = await serve([callTo("slow"), { items: [{ type: "message", text: "Both done." }] }], [slow]);
    const threadId = (await request("thread/start", {})).result.thread.id;
    const turn = await request("turn/start", { threadId, input: [{ type: "text", text: "Go." }] });
    const turnId = turn.result.turn.id;
    await running;
    const steer = await request("turn/steer", { threadId, expectedTurnId: turnId, input: [{ type: "text", text: "Then this." }] });
    expect(steer.result).toEqual({ turnId });
    // The tool is not cut: the steered input waits until it returns.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(log.messages.some((m) => m.method === "item/started" && m.params.item.type === "userMessage" && m.params.item.content[0].text === "Then this.")).toBe(false);
    expect(mock.requests).toHaveLength(1);
    release();
    const completed = await log.waitFor((m) => m.method === "turn/completed");
    expect(completed.params.turn).toMatchObject({ status: "completed", items: [expect.objectContaining({ text: "Both done." })] });
    const input = mock.requests[1]!.body.input as any[];
    expect(input.slice(-4).map((item) => item.type === "message" ? item.content[0].text : item.type)).toEqual(["Go.", "function_call", "function_call_output", "Then this."]);
  });
});
