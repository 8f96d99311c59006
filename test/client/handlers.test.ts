import { describe, expect, it } from "vitest";
import { AppServerClient } from "../../src/client/index.js";
import { deferred, fakeServer, mockWith, spawnWithMock, tempDir, toolOutput, within } from "./support.js";

const lookup = {
  type: "function" as const,
  name: "lookup_ticket",
  description: "Looks a ticket up in the client's tracker.",
  inputSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
};

describe("server request handlers against the real server", () => {
  it("runs a dynamic tool (item/tool/call) in the client: a text result, and a thrown error failing the call", async () => {
    const mock = await mockWith([
      { items: [{ type: "function_call", name: "lookup_ticket", arguments: { id: "T-7" }, callId: "call_a" }] },
      { items: [{ type: "function_call", name: "lookup_ticket", arguments: { id: "T-8" }, callId: "call_b" }] },
      { items: [{ type: "message", text: "T-7 is on fire; T-8 is unknown." }] },
    ]);
    const client = await spawnWithMock(mock, { capabilities: { experimentalApi: true } });
    const calls: unknown[] = [];
    client.onToolCall((params) => {
      calls.push([params.callId, params.tool, params.arguments]);
      if ((params.arguments as { id: string }).id === "T-8") throw new Error("no ticket T-8");
      return "T-7: printer on fire";
    });
    const { thread } = await client.startThread({ cwd: tempDir(), dynamicTools: [lookup] });
    const turn = client.runTurn(thread.id, "Look up T-7 and T-8.", {}, { timeoutMs: 15_000 });
    const items = [];
    for await (const event of turn) {
      if (event.method === "item/completed" && event.params.item.type === "dynamicToolCall") items.push(event.params.item);
    }
    expect(turn.turn?.status).toBe("completed");
    expect(calls).toEqual([
      ["call_a", "lookup_ticket", { id: "T-7" }],
      ["call_b", "lookup_ticket", { id: "T-8" }],
    ]);
    expect(items.map((item) => [item.id, item.status, item.success])).toEqual([
      ["call_a", "completed", true],
      ["call_b", "failed", false],
    ]);
    expect(toolOutput(mock.requests[1]!.body, "call_a")).toBe("T-7: printer on fire");
    expect(toolOutput(mock.requests[2]!.body, "call_b")).toBe("no ticket T-8");
  });

  it("answers the model's questions (item/tool/requestUserInput)", async () => {
    const question = { id: "db", header: "Database", question: "Which database?", options: [{ label: "Postgres", description: "Default" }] };
    const mock = await mockWith([
      { items: [{ type: "function_call", name: "request_user_input", arguments: { questions: [question] }, callId: "call_q" }] },
      { items: [{ type: "message", text: "Postgres it is." }] },
    ]);
    const client = await spawnWithMock(mock, { extraArgs: ["-c", "tools.experimental_request_user_input.enabled=true"] });
    const asked: unknown[] = [];
    client.onUserInput((params) => {
      asked.push(params.questions.map((q) => [q.id, q.question]));
      return { answers: { db: { answers: ["Postgres"] } } };
    });
    const { thread } = await client.startThread({ cwd: tempDir() });
    expect(await client.runTurn(thread.id, "Set up the app.", {}, { timeoutMs: 15_000 }).text()).toBe("Postgres it is.");
    expect(asked).toEqual([[["db", "Which database?"]]]);
    expect(JSON.parse(toolOutput(mock.requests[1]!.body, "call_q") as string)).toEqual({ answers: { db: { answers: ["Postgres"] } } });
  });

  it("answers -32601 for a tool call nobody handles, and the generic onRequest handles it the same way", async () => {
    const mock = await mockWith([
      { items: [{ type: "function_call", name: "lookup_ticket", arguments: { id: "T-1" }, callId: "call_1" }] },
      { items: [{ type: "message", text: "first done" }] },
      { items: [{ type: "function_call", name: "lookup_ticket", arguments: { id: "T-2" }, callId: "call_2" }] },
      { items: [{ type: "message", text: "second done" }] },
    ]);
    const client = await spawnWithMock(mock, { capabilities: { experimentalApi: true } });
    const { thread } = await client.startThread({ cwd: tempDir(), dynamicTools: [lookup] });
    await client.runTurn(thread.id, "One.", {}, { timeoutMs: 15_000 }).text();
    expect(toolOutput(mock.requests[1]!.body, "call_1")).toMatch(/did not answer/);
    client.onRequest("item/tool/call", (params) => ({ contentItems: [{ type: "inputText", text: `seen ${params.callId}` }], success: true }));
    await client.runTurn(thread.id, "Two.", {}, { timeoutMs: 15_000 }).text();
    expect(toolOutput(mock.requests[3]!.body, "call_2")).toBe("seen call_2");
  });
});

describe("server request handlers against a fake server", () => {
  it("answers any method with onRequest / setRequestHandler, -32601 without a handler, -32603 when the handler throws", async () => {
    const server = await fakeServer();
    const { client } = server;
    const elicitation = { threadId: "t", serverName: "docs", message: "Your name?", requestedSchema: { type: "object", properties: {} } };
    const stop = client.onRequest("mcpServer/elicitation/request", async (params, context) => {
      expect(context).toMatchObject({ id: "e1", method: "mcpServer/elicitation/request" });
      return { action: "accept", content: { name: (params as { serverName: string }).serverName } };
    });
    server.send({ id: "e1", method: "mcpServer/elicitation/request", params: elicitation });
    expect(await server.received((m) => m.id === "e1")).toEqual({ id: "e1", result: { action: "accept", content: { name: "docs" } } });

    stop();
    server.send({ id: "e2", method: "mcpServer/elicitation/request", params: elicitation });
    expect(await server.received((m) => m.id === "e2")).toEqual({
      id: "e2",
      error: { code: -32601, message: "this client does not handle mcpServer/elicitation/request" },
    });

    client.setRequestHandler("item/permissions/requestApproval", () => {
      throw new Error("no permission store");
    });
    server.send({ id: "p3", method: "item/permissions/requestApproval", params: { threadId: "t", turnId: "u", itemId: "i" } });
    expect(await server.received((m) => m.id === "p3")).toEqual({ id: "p3", error: { code: -32603, message: "no permission store" } });
    client.setRequestHandler("item/permissions/requestApproval", null);
    server.send({ id: "p4", method: "item/permissions/requestApproval", params: { threadId: "t", turnId: "u", itemId: "i" } });
    expect(await server.received((m) => m.id === "p4")).toMatchObject({ error: { code: -32601 } });
  });

  it("declines approvals by default, uses the typed handlers, and null restores the default", async () => {
    const server = await fakeServer();
    const { client } = server;
    const base = { threadId: "t", turnId: "u", itemId: "i", startedAtMs: 1 };
    server.send({ id: 101, method: "item/commandExecution/requestApproval", params: base }, { id: 102, method: "item/fileChange/requestApproval", params: base });
    expect(await server.received((m) => m.id === 101)).toEqual({ id: 101, result: { decision: "decline" } });
    expect(await server.received((m) => m.id === 102)).toEqual({ id: 102, result: { decision: "decline" } });

    client.onCommandApproval(async () => "acceptForSession" as const);
    client.onFileChangeApproval(() => "accept");
    server.send({ id: 103, method: "item/commandExecution/requestApproval", params: base }, { id: 104, method: "item/fileChange/requestApproval", params: base });
    expect(await server.received((m) => m.id === 103)).toEqual({ id: 103, result: { decision: "acceptForSession" } });
    expect(await server.received((m) => m.id === 104)).toEqual({ id: 104, result: { decision: "accept" } });

    client.onCommandApproval(null);
    server.send({ id: 105, method: "item/commandExecution/requestApproval", params: base });
    expect(await server.received((m) => m.id === 105)).toEqual({ id: 105, result: { decision: "decline" } });

    client.onUserInput(() => ({ answers: { q: { answers: ["yes"] } } }));
    server.send({ id: 106, method: "item/tool/requestUserInput", params: { ...base, questions: [], isBlocking: true } });
    expect(await server.received((m) => m.id === 106)).toEqual({ id: 106, result: { answers: { q: { answers: ["yes"] } } } });
  });

  it("aborts a handler's signal when the server resolves the request (answered elsewhere or withdrawn)", async () => {
    const server = await fakeServer();
    const aborted = deferred<unknown>();
    server.client.onCommandApproval(
      (_params, { signal }) =>
        new Promise((resolve) =>
          signal.addEventListener("abort", () => {
            aborted.resolve(signal.reason);
            resolve("cancel");
          }),
        ),
    );
    server.send({ id: 9, method: "item/commandExecution/requestApproval", params: { threadId: "t", turnId: "u", itemId: "i", startedAtMs: 1 } });
    server.send({ method: "serverRequest/resolved", params: { threadId: "t", requestId: 9 } });
    expect(String(await within(aborted.promise, "the handler's abort"))).toContain("resolved request 9");
  });

  it("aborts running handlers' signals when the connection ends", async () => {
    const server = await fakeServer();
    const started = deferred();
    const aborted = deferred();
    server.client.onToolCall(
      (_params, { signal }) =>
        new Promise((resolve) => {
          started.resolve();
          signal.addEventListener("abort", () => {
            aborted.resolve();
            resolve("too late");
          });
        }),
    );
    server.send({ id: 1, method: "item/tool/call", params: { threadId: "t", turnId: "u", callId: "c", tool: "x", arguments: {} } });
    await within(started.promise, "the tool handler");
    server.end();
    await within(aborted.promise, "the handler's abort");
    expect(server.client.closed).toBe(true);
  });
});

describe("the client's API surface", () => {
  it("exposes the Python client's capabilities under TypeScript names", () => {
    const methods = Object.getOwnPropertyNames(AppServerClient.prototype);
    for (const name of ["request", "notify", "on", "onAny", "waitFor", "subscribe", "onRequest", "setRequestHandler", "onCommandApproval", "onFileChangeApproval", "onToolCall", "onUserInput", "startThread", "resumeThread", "interruptTurn", "runTurn", "initialize", "close"]) {
      expect(methods, name).toContain(name);
    }
    expect(typeof AppServerClient.collectText).toBe("function");
  });
});
