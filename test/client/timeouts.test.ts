import { describe, expect, it } from "vitest";
import { AbortedError, AppServerClient, ConnectionClosedError, RequestTimeoutError, TurnTimeoutError } from "../../src/client/index.js";
import { startMockModel, type MockModel } from "../../src/testing/index.js";
import { cleanup, deferred, fakeServer, fakeTurn, mockWith, spawnWithMock, tempDir, within } from "./support.js";

/** A fake server that never answers `thread/list` (and answers `thread/loaded/list`). */
async function holdingServer(options: Parameters<typeof fakeServer>[1] = {}) {
  return fakeServer((message, server) => {
    if (message.method === "thread/loaded/list") server.send({ id: message.id, result: { data: [], nextCursor: null } });
  }, options);
}

describe("request timeouts and abort signals", () => {
  it("rejects a request with RequestTimeoutError after its timeoutMs, and ignores the late answer", async () => {
    const server = await holdingServer();
    const failure = await server.client.request("thread/list", {}, { timeoutMs: 50 }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(RequestTimeoutError);
    expect(failure).toMatchObject({ name: "RequestTimeoutError", method: "thread/list", timeoutMs: 50 });
    const held = await server.received((m) => m.method === "thread/list");
    server.send({ id: held.id, result: { data: [], nextCursor: null } });
    // The connection goes on.
    expect(await server.client.request("thread/loaded/list", {}, { timeoutMs: 5_000 })).toEqual({ data: [], nextCursor: null });
  });

  it("applies the client's requestTimeoutMs by default; null disables it for one call", async () => {
    const server = await holdingServer({ requestTimeoutMs: 50 });
    await expect(server.client.request("thread/list", {})).rejects.toBeInstanceOf(RequestTimeoutError);
    const unbounded = server.client.request("thread/list", {}, { timeoutMs: null });
    const held = await server.received((m) => m.method === "thread/list" && m.id !== server.seen.find((s) => s.method === "thread/list").id);
    server.send({ id: held.id, result: { data: [], nextCursor: null } });
    expect(await within(unbounded, "the unbounded request")).toEqual({ data: [], nextCursor: null });
  });

  it("rejects with AbortedError when the signal fires, and sends nothing for an already aborted signal", async () => {
    const server = await holdingServer();
    const controller = new AbortController();
    const pending = server.client.request("thread/list", {}, { signal: controller.signal, timeoutMs: null });
    await server.received((m) => m.method === "thread/list");
    controller.abort("changed my mind");
    const failure = await pending.catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AbortedError);
    expect(failure).toMatchObject({ name: "AbortError", reason: "changed my mind" });

    const sent = server.seen.length;
    await expect(server.client.request("thread/list", {}, { signal: AbortSignal.abort() })).rejects.toBeInstanceOf(AbortedError);
    expect(server.seen.length).toBe(sent);
  });

  it("rejects what waits with ConnectionClosedError when the server goes away", async () => {
    const server = await holdingServer();
    const pending = server.client.request("thread/list", {}, { timeoutMs: null });
    await server.received((m) => m.method === "thread/list");
    server.end();
    const failure = await pending.catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ConnectionClosedError);
    expect(failure).toMatchObject({ code: -32000, message: "the server closed the connection" });
  });

  it("waitFor resolves with a notification's params, and times out or aborts like a request", async () => {
    const server = await holdingServer();
    const warned = server.client.waitFor("warning", (params) => params.message === "second", { timeoutMs: 5_000 });
    server.send({ method: "warning", params: { message: "first" } }, { method: "warning", params: { message: "second" } });
    expect(await warned).toEqual({ message: "second" });
    await expect(server.client.waitFor("warning", undefined, { timeoutMs: 20 })).rejects.toMatchObject({ name: "RequestTimeoutError", method: "warning" });
    await expect(server.client.waitFor("warning", undefined, { signal: AbortSignal.abort() })).rejects.toBeInstanceOf(AbortedError);
  });
  it("subscribe queues notifications from now on; nextEvent times out without losing later ones; iteration ends with the connection", async () => {
    const server = await holdingServer();
    const subscription = server.client.subscribe({ methods: "warning" });
    await expect(subscription.nextEvent({ timeoutMs: 20 })).rejects.toBeInstanceOf(RequestTimeoutError);
    server.send(
      { method: "warning", params: { message: "a" } },
      { method: "configWarning", params: { summary: "not subscribed" } },
      { method: "warning", params: { message: "b" } },
    );
    expect(await subscription.nextEvent({ timeoutMs: 5_000 })).toEqual({ method: "warning", params: { message: "a" } });
    server.end();
    const rest: string[] = [];
    for await (const event of subscription) if (event.method === "warning") rest.push(event.params.message);
    expect(rest).toEqual(["b"]);
    await expect(subscription.nextEvent()).rejects.toBeInstanceOf(ConnectionClosedError);
  });
});

describe("turn timeouts and abort signals (fake server)", () => {
  it("interrupts a turn whose turn/start is answered only after the turn's timeout", async () => {
    const server = await fakeServer();
    const failure = await server.client
      .runTurn("t", "hi", {}, { timeoutMs: 50 })
      .text()
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TurnTimeoutError);
    expect(failure).toMatchObject({ threadId: "t", turnId: null, turn: null, timeoutMs: 50 });
    const start = await server.received((m) => m.method === "turn/start");
    server.send({ id: start.id, result: { turn: fakeTurn("late") } });
    expect((await server.received((m) => m.method === "turn/interrupt")).params).toEqual({ threadId: "t", turnId: "late" });
  });

  it("gives up waiting for the end after interruptTimeoutMs when the server never confirms it", async () => {
    const server = await fakeServer(
      (message, fake) => {
        if (message.method === "turn/start") fake.send({ id: message.id, result: { turn: fakeTurn("u") } });
        // turn/interrupt is never answered, and no turn/completed comes.
      },
      { interruptTimeoutMs: 50 },
    );
    const failure = await server.client
      .runTurn("t", "hi", {}, { timeoutMs: 50 })
      .text()
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TurnTimeoutError);
    expect(failure).toMatchObject({ turnId: "u", turn: null });
    expect((await server.received((m) => m.method === "turn/interrupt")).params).toEqual({ threadId: "t", turnId: "u" });
  });

  it("an already aborted signal starts no turn", async () => {
    const server = await fakeServer();
    const failure = await server.client
      .runTurn("t", "hi", {}, { signal: AbortSignal.abort("no") })
      .text()
      .catch((error: unknown) => error);
    expect(failure).toMatchObject({ name: "AbortError", reason: "no" });
    expect(server.seen.map((m) => m.method)).toEqual(["initialize", "initialized"]);
  });
});

describe("turn timeouts and abort signals (real server)", () => {
  it("a turn past its timeoutMs is interrupted: TurnTimeoutError with the interrupted turn", async () => {
    // Each request gets its answer by what it asks: on a loaded machine the timeout can interrupt
    // the first turn before its request is sent, and a queued hang would then meet the second turn.
    const mock: MockModel = await startMockModel({
      onRequest: (request) => {
        const asked = JSON.stringify(request.body.input);
        mock.push(asked.includes("Think forever.") && !asked.includes("Again.") ? { items: [{ type: "message", deltas: ["Thinking"] }], hang: true } : { items: [{ type: "message", text: "back" }] });
      },
    });
    cleanup(() => mock.close());
    const client = await spawnWithMock(mock);
    const { thread } = await client.startThread({ cwd: tempDir() });
    const seen: string[] = [];
    const failure = await (async () => {
      for await (const event of client.runTurn(thread.id, "Think forever.", {}, { timeoutMs: 300 })) seen.push(event.method);
    })().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TurnTimeoutError);
    const timeout = failure as TurnTimeoutError;
    expect(timeout.turn?.status).toBe("interrupted");
    expect(timeout.turnId).toBe(timeout.turn?.id);
    expect(seen).not.toContain("turn/completed");
    // The thread is usable again: the next turn runs.
    expect(await client.runTurn(thread.id, "Again.").text()).toBe("back");
  });

  it("aborting a turn that waits on an approval: the turn is interrupted and the handler's signal reports the withdrawal", async () => {
    const mock = await mockWith([
      { items: [{ type: "exec", cmd: "echo approved", callId: "call_1", sandbox_permissions: "require_escalated", justification: "why" }] },
    ]);
    const client = await spawnWithMock(mock, { extraArgs: ["-c", `approval_policy="on-request"`, "-c", `sandbox_mode="workspace-write"`] });
    const controller = new AbortController();
    const withdrawn = deferred();
    client.onCommandApproval(
      (_params, { signal }) =>
        new Promise((resolve) => {
          signal.addEventListener("abort", () => {
            withdrawn.resolve();
            resolve("decline");
          });
          // Nobody answers: the user gives up on the turn instead.
          controller.abort("user gave up");
        }),
    );
    const { thread } = await client.startThread({ cwd: tempDir() });
    const failure = await client
      .runTurn(thread.id, "Run it.", {}, { signal: controller.signal, timeoutMs: 15_000 })
      .text()
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AbortedError);
    expect(failure).toMatchObject({ reason: "user gave up", turn: { status: "interrupted" } });
    await within(withdrawn.promise, "the approval's withdrawal");
  });

  it("aborting runTurn's signal interrupts the turn: AbortedError with the interrupted turn", async () => {
    const mock = await mockWith([{ items: [{ type: "message", deltas: ["Thinking"] }], hang: true }]);
    const client = await spawnWithMock(mock, { turnTimeoutMs: 15_000 });
    const { thread } = await client.startThread({ cwd: tempDir() });
    const controller = new AbortController();
    const turn = client.runTurn(thread.id, "Think forever.", {}, { signal: controller.signal });
    const failure = await (async () => {
      for await (const event of turn) if (event.method === "turn/started") controller.abort(new Error("user pressed Esc"));
    })().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AbortedError);
    expect((failure as AbortedError).reason).toMatchObject({ message: "user pressed Esc" });
    expect((failure as AbortedError).turn?.status).toBe("interrupted");
    expect(turn.turn?.status).toBe("interrupted");
  });

  it("the client's turnTimeoutMs applies to every runTurn", async () => {
    const mock = await mockWith([{ items: [], hang: true }]);
    const client = await spawnWithMock(mock, { turnTimeoutMs: 200 });
    const { thread } = await client.startThread({ cwd: tempDir() });
    await expect(AppServerClient.collectText(client.runTurn(thread.id, "Hang."))).rejects.toBeInstanceOf(TurnTimeoutError);
  });
});
