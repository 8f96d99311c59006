import { describe, expect, it } from "vitest";
import { launch, runTurn, startThread } from "../support/turnHarness.js";

const lookup = {
  type: "function",
  name: "lookup_ticket",
  description: "Looks a ticket up in the client's tracker.",
  inputSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
};
const deferred = { ...lookup, name: "later_tool", deferLoading: true };
const namespace = { type: "namespace", name: "tracker", description: "Tracker tools.", tools: [{ ...lookup, name: "close_ticket" }, deferred] };

function toolOutput(body: Record<string, unknown>, callId: string): unknown {
  return (body.input as any[]).find((item) => item.type === "function_call_output" && item.call_id === callId)?.output;
}

describe("client tools (thread/start.dynamicTools)", () => {
  it("are refused without the experimental API, as in Codex", async () => {
    const { server } = await launch([]);
    const refused = await server.request("thread/start", { dynamicTools: [lookup] });
    expect(refused.error).toMatchObject({ code: -32600, message: "thread/start.dynamicTools requires experimentalApi capability" });
  });

  it("runs calls when the client opted in; a failed or unanswered call fails its item", async () => {
    const { server, mock } = await launch(
      [
        { items: [{ type: "function_call", name: "lookup_ticket", arguments: { id: "T-7" }, callId: "call_a" }] },
        { items: [{ type: "function_call", name: "tracker__close_ticket", arguments: { id: "T-7" }, callId: "call_b" }] },
        { items: [{ type: "message", text: "Ticket T-7 is closed." }] },
      ],
      { capabilities: { experimentalApi: true } },
    );
    const threadId = await startThread(server, { dynamicTools: [lookup, namespace] });
    server.onRequest("item/tool/call", (params) =>
      params.tool === "lookup_ticket"
        ? { contentItems: [{ type: "inputText", text: "T-7: printer on fire" }], success: true }
        : { contentItems: [{ type: "inputText", text: "not allowed" }], success: false },
    );
    const { completed } = await runTurn(server, threadId, "Close T-7.");
    expect(completed.params.turn.status).toBe("completed");
    const offered = (mock.requests[0]!.body.tools as any[]).map((tool) => tool.name);
    expect(offered).toEqual(expect.arrayContaining(["lookup_ticket", "tracker__close_ticket", "exec_command"]));
    expect(offered).not.toContain("tracker__later_tool");
    const calls = server.messages.filter((m) => m.method === "item/tool/call");
    expect(calls.map((m) => [m.params.callId, m.params.namespace ?? null, m.params.tool, m.params.arguments])).toEqual([
      ["call_a", null, "lookup_ticket", { id: "T-7" }],
      ["call_b", "tracker", "close_ticket", { id: "T-7" }],
    ]);
    const items = server.messages.filter((m) => m.method === "item/completed" && m.params.item.type === "dynamicToolCall").map((m) => m.params.item);
    expect(items.map((item) => [item.id, item.status, item.success])).toEqual([
      ["call_a", "completed", true],
      ["call_b", "failed", false],
    ]);
    expect(items[0].contentItems).toEqual([{ type: "inputText", text: "T-7: printer on fire" }]);
    expect(toolOutput(mock.requests[1]!.body, "call_a")).toBe("T-7: printer on fire");
    expect(toolOutput(mock.requests[2]!.body, "call_b")).toBe("not allowed");
    // Codex sends no serverRequest/resolved for answered tool calls.
    expect(server.messages.filter((m) => m.method === "serverRequest/resolved")).toEqual([]);
    const read = await server.request("thread/read", { threadId, includeTurns: true });
    expect(read.result.thread.turns[0].items.filter((item: any) => item.type === "dynamicToolCall")).toHaveLength(2);
  });

  it("fails the call when the client answers with an error", async () => {
    const { server, mock } = await launch(
      [
        { items: [{ type: "function_call", name: "lookup_ticket", arguments: "{}", callId: "call_x" }] },
        { items: [{ type: "message", text: "Could not look it up." }] },
      ],
      { capabilities: { experimentalApi: true } },
    );
    const threadId = await startThread(server, { dynamicTools: [lookup] });
    server.onRequest("item/tool/call", () => {
      throw new Error("tracker is down");
    });
    const { completed } = await runTurn(server, threadId, "Look up a ticket.");
    expect(completed.params.turn.status).toBe("completed");
    const item = server.messages.find((m) => m.method === "item/completed" && m.params.item.type === "dynamicToolCall").params.item;
    expect(item).toMatchObject({ status: "failed", success: false });
    expect(toolOutput(mock.requests[1]!.body, "call_x")).toMatch(/did not answer/);
  });
});

describe("request_user_input", () => {
  it("asks the user through item/tool/requestUserInput while the thread waits on user input", async () => {
    const question = { id: "db", header: "Database", question: "Which database?", options: [{ label: "Postgres", description: "Default" }] };
    const { server, mock } = await launch(
      [
        { items: [{ type: "function_call", name: "request_user_input", arguments: { questions: [question] }, callId: "call_q" }] },
        { items: [{ type: "message", text: "Postgres it is." }] },
      ],
      { args: ["-c", "tools.experimental_request_user_input.enabled=true"] },
    );
    const threadId = await startThread(server);
    server.onRequest("item/tool/requestUserInput", () => ({ answers: { db: { answers: ["Postgres"] } } }));
    const { completed } = await runTurn(server, threadId, "Set up the app.");
    expect(completed.params.turn.status).toBe("completed");
    expect((mock.requests[0]!.body.tools as any[]).map((tool) => tool.name)).toContain("request_user_input");
    const request = server.messages.find((m) => m.method === "item/tool/requestUserInput");
    expect(request.params).toMatchObject({ threadId, itemId: "call_q", isBlocking: true, questions: [{ id: "db", question: "Which database?" }] });
    const statuses = server.messages.filter((m) => m.method === "thread/status/changed").map((m) => m.params.status.activeFlags ?? m.params.status.type);
    expect(statuses).toContainEqual(["waitingOnUserInput"]);
    const index = (m: any) => server.messages.indexOf(m);
    const waiting = server.messages.find((m) => m.method === "thread/status/changed" && m.params.status.activeFlags?.includes("waitingOnUserInput"));
    expect(index(waiting)).toBeLessThan(index(request));
    expect(server.messages.some((m) => m.method === "serverRequest/resolved" && m.params.requestId === request.id)).toBe(true);
    expect(JSON.parse(toolOutput(mock.requests[1]!.body, "call_q") as string)).toEqual({ answers: { db: { answers: ["Postgres"] } } });
  });

  it("is not offered unless enabled", async () => {
    const { server, mock } = await launch([{ items: [{ type: "message", text: "Hi." }] }]);
    const threadId = await startThread(server);
    await runTurn(server, threadId, "Hello.");
    expect((mock.requests[0]!.body.tools as any[]).map((tool) => tool.name)).not.toContain("request_user_input");
  });
});
