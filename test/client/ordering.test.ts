import { describe, expect, it } from "vitest";
import { AppServerClient, spawnTransport, type ClientTransport, type ServerEvent } from "../../src/client/index.js";
import { CLI_PATH } from "../support/serverProcess.js";
import { cleanup, deferred, fakeServer, fakeTurn, mockWith, providerArgs, tempDir, within } from "./support.js";

const commandItem = { type: "commandExecution", id: "cmd_1", command: "echo hi", cwd: "/", status: "inProgress", commandActions: [] };
const approval = (id: number, threadId = "t") => ({
  id,
  method: "item/commandExecution/requestApproval",
  params: { threadId, turnId: "u", itemId: "cmd_1", startedAtMs: 1, command: "echo hi" },
});

/** A fake server whose turn sends `item/started`, then (in the same chunk) an approval request; the answer completes the turn. */
async function approvingTurnServer() {
  return fakeServer((message, server) => {
    if (message.method === "turn/start") {
      server.send(
        { id: message.id, result: { turn: fakeTurn("u") } },
        { method: "turn/started", params: { threadId: "t", turn: fakeTurn("u") } },
        { method: "item/started", params: { threadId: "t", turnId: "u", item: commandItem } },
        approval(5),
      );
    }
    if (message.id === 5 && message.result) {
      server.send(
        { method: "item/completed", params: { threadId: "t", turnId: "u", item: { ...commandItem, status: message.result.decision === "accept" ? "completed" : "declined" } } },
        { method: "turn/completed", params: { threadId: "t", turn: fakeTurn("u", "completed") } },
      );
    }
  });
}

describe("event order relative to server request handlers", () => {
  it("runTurn's consumer has seen (and finished with) the events before an approval when its handler runs", async () => {
    const { client } = await approvingTurnServer();
    const order: string[] = [];
    client.on("item/started", () => order.push("listener:item/started"));
    client.onCommandApproval(() => {
      order.push("approval");
      return "accept";
    });
    for await (const event of client.runTurn("t", "go", {}, { timeoutMs: 5_000 })) {
      order.push(`turn:${event.method}`);
      // A consumer that works asynchronously on an event is still done with it before the approval.
      if (event.method === "item/started") {
        await new Promise((resolve) => setImmediate(resolve));
        order.push("turn:item/started handled");
      }
    }
    expect(order).toEqual([
      "listener:item/started",
      "turn:turn/started",
      "turn:item/started",
      "turn:item/started handled",
      "approval",
      "turn:item/completed",
      "turn:turn/completed",
    ]);
  });

  it("does not hold a request of another thread behind a turn's consumer", async () => {
    const server = await approvingTurnServer();
    const other = deferred<string>();
    server.client.onCommandApproval((params) => {
      if (params.threadId === "other") other.resolve("handled");
      return "accept";
    });
    const methods: string[] = [];
    for await (const event of server.client.runTurn("t", "go", {}, { timeoutMs: 5_000 })) {
      methods.push(event.method);
      // The consumer waits, mid-event, for a request of another thread: it must not wait for this consumer.
      if (event.method === "turn/started") {
        server.send(approval(6, "other"));
        expect(await within(other.promise, "the other thread's approval")).toBe("handled");
      }
    }
    expect(methods).toEqual(["turn/started", "item/started", "item/completed", "turn/completed"]);
    expect(await server.received((m) => m.id === 6 && m.result)).toEqual({ id: 6, result: { decision: "accept" } });
  });

  it("lets a request go once the consumer breaks out of the turn", async () => {
    const server = await approvingTurnServer();
    const asked = deferred();
    server.client.onCommandApproval(() => {
      asked.resolve();
      return "decline";
    });
    for await (const event of server.client.runTurn("t", "go", {}, { timeoutMs: 5_000 })) {
      if (event.method === "turn/started") break;
    }
    await within(asked.promise, "the approval handler");
    expect(await server.received((m) => m.id === 5)).toEqual({ id: 5, result: { decision: "decline" } });
  });

  it("against the real server: every event of the turn that arrived before the approval reached the consumer first", async () => {
    const mock = await mockWith([
      { items: [{ type: "exec", cmd: "echo approved", callId: "call_1", sandbox_permissions: "require_escalated", justification: "why" }] },
      { items: [{ type: "message", text: "done" }] },
    ]);
    const home = tempDir();
    // Record the wire as the client receives it.
    const wire: Array<Record<string, unknown>> = [];
    const inner = spawnTransport(
      [process.execPath, CLI_PATH, "app-server", ...providerArgs(mock.url), "-c", `approval_policy="on-request"`, "-c", `sandbox_mode="workspace-write"`],
      { env: { ...process.env, AGENT_APP_SERVER_HOME: home, HOME: home, LOG_LEVEL: "warn" } },
    );
    const transport: ClientTransport = {
      ...inner,
      onMessage: (handler) =>
        inner.onMessage((message) => {
          wire.push(message);
          handler(message);
        }),
    };
    const client = await AppServerClient.start(transport);
    cleanup(() => client.close());
    const { thread } = await client.startThread({ cwd: tempDir() });
    const consumed: ServerEvent[] = [];
    let before = null as Array<Record<string, unknown>> | null;
    let earlier = 0;
    client.onCommandApproval((params) => {
      const index = wire.findIndex((message) => message.params === params);
      const ofTurn = (message: Record<string, unknown>) => {
        const p = message.params as { turnId?: string; turn?: { id: string } } | undefined;
        return message.id === undefined && (p?.turnId ?? p?.turn?.id) === params.turnId;
      };
      // The turn's notifications that arrived before this request and the consumer has not seen yet.
      before = wire.slice(0, index).filter(ofTurn).filter((message) => !consumed.some((event) => event.params === message.params));
      earlier = wire.slice(0, index).filter(ofTurn).length;
      return "accept";
    });
    for await (const event of client.runTurn(thread.id, "Run it.", {}, { timeoutMs: 15_000 })) consumed.push(event);
    expect(consumed.at(-1)?.params).toMatchObject({ turn: { status: "completed" } });
    expect(consumed.some((event) => event.method === "item/started" && event.params.item.type === "commandExecution")).toBe(true);
    // Nothing of the thread that arrived before the approval was still unseen by the consumer.
    expect(earlier).toBeGreaterThan(0);
    expect(before?.map((message) => message.method)).toEqual([]);
  });
});
