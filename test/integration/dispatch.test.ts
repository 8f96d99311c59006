import { describe, expect, it } from "vitest";
import type { HandlerTable } from "../../src/server/dispatcher.js";
import { createNotification } from "../../src/server/notifications.js";
import type { ClientConnection } from "../../src/server/connection.js";
import { ServerRequestBroker } from "../../src/server/serverRequests.js";
import { MemoryClient, memoryLogger } from "../support/memoryClient.js";

const INIT = { clientInfo: { name: "mem", version: "1" } };

/** Resolves once the client's earlier input was read: a request sent after it has been answered. */
let syncs = 0;
async function settled(client: MemoryClient): Promise<void> {
  const id = `sync-${++syncs}`;
  client.send({ id, method: "no/such/method" });
  await client.response(id);
}

/** A promise the test resolves by hand, to hold a handler at a known point. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

const describeServer = { userAgent: "ua", codexHome: "/h", platformFamily: "unix", platformOs: "linux" };

/** An initialize handler that marks the connection and runs `body` for every call. */
function handlers(body: (params: any) => Promise<void> | void = () => undefined): Partial<HandlerTable> {
  return {
    initialize: async (params, { connection }) => {
      if (!connection.client) {
        connection.markInitialized({
          clientName: params.clientInfo.name,
          clientVersion: params.clientInfo.version,
          experimentalApi: false,
          optOutNotificationMethods: new Set(params.capabilities?.optOutNotificationMethods ?? []),
        });
      }
      await body(params);
      return describeServer;
    },
  };
}

describe("dispatch through the real connection", () => {
  it("answers an unexpected handler failure with -32603 and logs the stack, not the wire", async () => {
    const { logger, lines } = memoryLogger();
    const client = new MemoryClient(
      handlers(() => {
        throw new Error("secret internal detail");
      }),
      { host: { logger } },
    );
    client.send({ id: 1, method: "initialize", params: INIT });
    const response = await client.response(1);
    expect(response.error).toEqual({ code: -32603, message: "Internal error; see the server log for details." });
    expect(JSON.stringify(response)).not.toContain("secret");
    expect(lines.join("")).toContain("secret internal detail");
    expect(lines.join("")).toContain("at ");
  });

  it("answers -32001 once the request bound is reached, and serves again after", async () => {
    const held = gate();
    const client = new MemoryClient(handlers(() => held.promise), { maxPending: 2 });
    client.send({ id: 1, method: "initialize", params: INIT });
    client.send({ id: 2, method: "initialize", params: INIT });
    client.send({ id: 3, method: "initialize", params: INIT });
    expect((await client.response(3)).error).toEqual({ code: -32001, message: "Server overloaded; retry later." });
    held.open();
    expect((await client.response(1)).result).toEqual(describeServer);
    expect((await client.response(2)).result).toEqual(describeServer);
    client.send({ id: 4, method: "initialize", params: INIT });
    expect((await client.response(4)).result).toEqual(describeServer);
  });

  it("runs requests naming the same thread in order and others concurrently", async () => {
    const held = gate();
    const order: string[] = [];
    // The registry orders thread/read per thread and thread/list not at all; the request id tags each call.
    const tagged = async (tag: string) => {
      order.push(`start ${tag}`);
      if (tag === "a1") await held.promise;
      order.push(`end ${tag}`);
    };
    const client = new MemoryClient({
      ...handlers(),
      "thread/read": async (_params, { requestId }) => {
        await tagged(String(requestId));
        return {} as never;
      },
      "thread/list": async (_params, { requestId }) => {
        await tagged(String(requestId));
        return {} as never;
      },
    });
    client.send({ id: "init", method: "initialize", params: INIT });
    await client.response("init");
    // Thread ids are UUIDs (dispatch refuses anything else before ordering).
    const threadA = "0199a000-0000-7000-8000-00000000000a";
    const threadB = "0199a000-0000-7000-8000-00000000000b";
    client.send({ id: "a1", method: "thread/read", params: { threadId: threadA } });
    client.send({ id: "a2", method: "thread/read", params: { threadId: threadA } });
    client.send({ id: "b1", method: "thread/read", params: { threadId: threadB } });
    client.send({ id: "free", method: "thread/list", params: {} });
    await client.response("b1");
    await client.response("free");
    expect(order).toEqual(["start a1", "start b1", "end b1", "start free", "end free"]);
    held.open();
    await client.response("a2");
    expect(order.slice(5)).toEqual(["end a1", "start a2", "end a2"]);
    expect(client.messages.map((m) => m.id)).toEqual(["init", "b1", "free", "a1", "a2"]);
  });

  it("writes a response before the work a handler defers to after it", async () => {
    const client = new MemoryClient({
      initialize: (params, { connection, afterResponse }) => {
        connection.markInitialized({ clientName: "x", clientVersion: "1", experimentalApi: false, optOutNotificationMethods: new Set() });
        afterResponse(() => void connection.notify(createNotification({ nowMs: () => 42 }, "warning", { message: "after" })));
        return describeServer;
      },
    });
    client.send({ id: 1, method: "initialize", params: INIT });
    await client.waitFor((m) => m.method === "warning");
    expect(client.messages).toEqual([
      { id: 1, result: describeServer },
      { method: "warning", params: { message: "after" }, emittedAtMs: 42 },
    ]);
  });

  it("suppresses exactly the notification methods a client opted out of", async () => {
    const client = new MemoryClient(handlers());
    client.send({ id: 1, method: "initialize", params: { ...INIT, capabilities: { optOutNotificationMethods: ["warning"] } } });
    await client.response(1);
    const clock = { nowMs: () => 7 };
    await client.connection.notify(createNotification(clock, "warning", { message: "hidden" }));
    await client.connection.notify(createNotification(clock, "configWarning", { summary: "shown" }));
    await client.waitFor((m) => m.method === "configWarning");
    expect(client.messages.map((m) => m.method ?? m.id)).toEqual([1, "configWarning"]);
  });

  it("numbers server requests per connection; a response settles only a request sent to its connection, once", async () => {
    const broker = new ServerRequestBroker<ClientConnection>();
    const { logger, lines } = memoryLogger();
    const first = new MemoryClient(handlers(), { host: { serverRequests: broker, logger } });
    const second = new MemoryClient(handlers(), { host: { serverRequests: broker, logger } });
    for (const client of [first, second]) {
      client.send({ id: 1, method: "initialize", params: INIT });
      await client.response(1);
    }
    const params = { threadId: "t", turnId: "u", itemId: "i", startedAtMs: 1 };
    const a = first.connection.request("item/fileChange/requestApproval", params);
    const b = second.connection.request("item/fileChange/requestApproval", params);
    const sentA = await first.waitFor((m) => m.method === "item/fileChange/requestApproval");
    const sentB = await second.waitFor((m) => m.method === "item/fileChange/requestApproval");
    expect([sentA.id, sentB.id]).toEqual([0, 0]);
    // The second connection's answer to id 0 is its own request's, never the first's.
    second.send({ id: 0, result: { decision: "bogus" } });
    await expect(b).rejects.toThrow(/invalid response to item\/fileChange\/requestApproval/);
    second.send({ id: 0, result: { decision: "decline" } });
    await settled(second);
    first.send({ id: 0, result: { decision: "accept" } });
    first.send({ id: 0, result: { decision: "decline" } });
    await expect(a).resolves.toEqual({ decision: "accept" });
    await settled(first);
    expect(lines.filter((line) => line.includes("ignored a response")).map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({ level: 40, connection: second.connection.number, id: 0 }),
      expect.objectContaining({ level: 40, connection: first.connection.number, id: 0 }),
    ]);
    expect(broker.size).toBe(0);
  });

  it("refuses a request reusing the id of one not yet answered, and still answers the first", async () => {
    const held = gate();
    const client = new MemoryClient(handlers(() => held.promise));
    client.input.write(
      JSON.stringify({ id: 1, method: "initialize", params: INIT }) + "\n" + JSON.stringify({ id: 1, method: "initialize", params: INIT }) + "\n",
    );
    const refused = await client.waitFor((m) => m.id === 1 && m.error);
    expect(refused.error.message).toBe("Invalid request: request id 1 is already in use by a request not yet answered");
    held.open();
    expect((await client.waitFor((m) => m.id === 1 && m.result)).result).toEqual(describeServer);
  });

  it("fails pending server requests when the client's input ends", async () => {
    const client = new MemoryClient(handlers());
    client.send({ id: 1, method: "initialize", params: INIT });
    await client.response(1);
    const pending = client.connection.request("item/fileChange/requestApproval", {
      threadId: "t",
      turnId: "u",
      itemId: "i",
      startedAtMs: 1,
    });
    await client.waitFor((m) => m.method === "item/fileChange/requestApproval");
    client.input.end();
    await expect(pending).rejects.toThrow("connection closed");
  });
});
