import { describe, expect, it } from "vitest";
import { ServerRequestBroker } from "../../src/server/serverRequests.js";

/** Settles of a promise, read without waiting: "pending" until it settled. */
function state(promise: Promise<unknown>): { value: unknown } {
  const seen: { value: unknown } = { value: "pending" };
  promise.then(
    (value) => (seen.value = { result: value }),
    (error: Error) => (seen.value = { error: error.message }),
  );
  return seen;
}

const answer = (id: number | string, result: object = { decision: "accept" }) => ({ jsonrpc: "2.0" as const, id, result });

describe("ServerRequestBroker", () => {
  it("numbers each connection's requests from 0; a request to several connections has an id on each", () => {
    const broker = new ServerRequestBroker();
    const [a, b] = [{}, {}];
    expect([...broker.open([a], "m").ids]).toEqual([[a, 0]]);
    expect([...broker.open([a], "m").ids]).toEqual([[a, 1]]);
    expect([...broker.open([a, b], "m").ids]).toEqual([
      [a, 2],
      [b, 0],
    ]);
  });

  it("ignores an answer from a connection the request was not sent to, even under the same id", async () => {
    const broker = new ServerRequestBroker();
    const [owner, stranger] = [{}, {}];
    const { response } = broker.open([owner], "m");
    const seen = state(response);
    expect(broker.settle(stranger, answer(0))).toBe(false);
    await Promise.resolve();
    expect(seen.value).toBe("pending");
    expect(broker.settle(owner, answer(0, { decision: "decline" }))).toBe(true);
    await expect(response).resolves.toEqual({ decision: "decline" });
  });

  it("ignores an answer under an id its connection was not sent, or not a number", () => {
    const broker = new ServerRequestBroker();
    const owner = {};
    broker.open([owner], "m");
    expect(broker.settle(owner, answer(1))).toBe(false);
    expect(broker.settle(owner, answer("0"))).toBe(false);
    expect(broker.settle(owner, answer(0))).toBe(true);
  });

  it("settles once: the first answer from any connection it was sent to; later answers are ignored", async () => {
    const broker = new ServerRequestBroker();
    const [a, b] = [{}, {}];
    const { ids, response } = broker.open([a, b], "m");
    expect(broker.settle(b, answer(ids.get(b)!, { decision: "accept" }))).toBe(true);
    expect(broker.settle(a, answer(ids.get(a)!, { decision: "decline" }))).toBe(false);
    expect(broker.settle(b, answer(ids.get(b)!, { decision: "decline" }))).toBe(false);
    await expect(response).resolves.toEqual({ decision: "accept" });
  });

  it("an error answer settles it as a rejection", async () => {
    const broker = new ServerRequestBroker();
    const owner = {};
    const { response } = broker.open([owner], "m");
    expect(broker.settle(owner, { jsonrpc: "2.0", id: 0, error: { code: -32000, message: "no" } })).toBe(true);
    await expect(response).rejects.toThrow("no");
  });

  it("sends a pending request to one more connection under that connection's next id; the same id again to one it was sent to", async () => {
    const broker = new ServerRequestBroker();
    const [a, late] = [{}, {}];
    broker.open([late], "other");
    const { key, response } = broker.open([a], "m");
    expect(broker.addOwner(key, late)).toBe(1);
    expect(broker.addOwner(key, late)).toBe(1);
    expect(broker.addOwner(key, a)).toBe(0);
    expect(broker.settle(late, answer(1))).toBe(true);
    await expect(response).resolves.toEqual({ decision: "accept" });
    expect(broker.addOwner(key, {})).toBeNull();
  });

  it("withdraws a request when the last connection it was sent to goes away, and not before", async () => {
    const broker = new ServerRequestBroker();
    const [a, b] = [{}, {}];
    const { ids, response } = broker.open([a, b], "m");
    const seen = state(response);
    broker.dropOwner(a, "connection closed");
    await Promise.resolve();
    expect(seen.value).toBe("pending");
    // A connection that went away answers nothing any more.
    expect(broker.settle(a, answer(ids.get(a)!))).toBe(false);
    broker.dropOwner(b, "connection closed");
    await expect(response).rejects.toThrow("connection closed");
    expect(broker.settle(b, answer(ids.get(b)!))).toBe(false);
  });

  it("withdraws once: an answer after the withdrawal is ignored", async () => {
    const broker = new ServerRequestBroker();
    const owner = {};
    const { key, response } = broker.open([owner], "m");
    broker.withdraw(key, "the turn ended");
    broker.withdraw(key, "again");
    await expect(response).rejects.toThrow("the turn ended");
    expect(broker.settle(owner, answer(0))).toBe(false);
  });

  it("keeps each connection's id until released, then forgets the request", async () => {
    const broker = new ServerRequestBroker();
    const [a, b] = [{}, {}];
    broker.open([b], "other");
    const { key, response } = broker.open([a, b], "m");
    expect(broker.settle(a, answer(0))).toBe(true);
    await response;
    expect([...broker.release(key)]).toEqual([
      [a, 0],
      [b, 1],
    ]);
    expect([...broker.release(key)]).toEqual([]);
    expect(broker.size).toBe(1);
  });

  it("releasing a request still waiting withdraws it", async () => {
    const broker = new ServerRequestBroker();
    const owner = {};
    const { key, response } = broker.open([owner], "m");
    broker.release(key);
    await expect(response).rejects.toThrow("released");
    expect(broker.settle(owner, answer(0))).toBe(false);
    expect(broker.size).toBe(0);
  });
});
