import { describe, expect, it } from "vitest";
import { parseEnvelope } from "../../src/transport/envelope.js";
import { LineSplitter } from "../../src/transport/lineSplitter.js";

const lines = (events: ReturnType<LineSplitter["push"]>) =>
  events.map((e) => (e.kind === "line" ? e.bytes.toString() : `overflow:${e.bytes}`));

describe("LineSplitter", () => {
  it("splits, joins across chunks, and keeps a last unterminated line for finish()", () => {
    const splitter = new LineSplitter(100);
    expect(lines(splitter.push(Buffer.from("ab\ncd")))).toEqual(["ab"]);
    expect(lines(splitter.push(Buffer.from("ef\n\ngh")))).toEqual(["cdef", ""]);
    expect(lines(splitter.finish())).toEqual(["gh"]);
    expect(splitter.finish()).toEqual([]);
  });

  it("drops an overlong line as it streams and reports it once at its newline", () => {
    const splitter = new LineSplitter(5);
    expect(lines(splitter.push(Buffer.from("1234")))).toEqual([]);
    expect(lines(splitter.push(Buffer.from("5678")))).toEqual([]);
    expect(lines(splitter.push(Buffer.from("9\nok\n")))).toEqual(["overflow:9", "ok"]);
  });

  it("accepts a line of exactly the limit", () => {
    expect(lines(new LineSplitter(3).push(Buffer.from("abc\n")))).toEqual(["abc"]);
  });
});

describe("parseEnvelope", () => {
  it("normalizes requests, notifications and responses to carry jsonrpc", () => {
    expect(parseEnvelope('{"id":1,"method":"m","params":{"a":1}}')).toEqual({
      kind: "message",
      message: { jsonrpc: "2.0", id: 1, method: "m", params: { a: 1 } },
    });
    expect(parseEnvelope('{"method":"n","params":null}')).toEqual({
      kind: "message",
      message: { jsonrpc: "2.0", method: "n", params: undefined },
    });
    expect(parseEnvelope('{"id":"x","result":{}}')).toEqual({ kind: "message", message: { jsonrpc: "2.0", id: "x", result: {} } });
  });

  it("never answers a response, even a malformed one", () => {
    expect(parseEnvelope('{"id":null,"error":{"code":1,"message":"m"}}').kind).toBe("ignored");
    expect(parseEnvelope('{"id":1.5,"result":1}').kind).toBe("ignored");
  });

  it("rejects a wrong jsonrpc version", () => {
    expect(parseEnvelope('{"jsonrpc":"1.0","id":3,"method":"m"}')).toMatchObject({
      kind: "invalid",
      invalid: { id: 3, code: -32600 },
    });
  });
});

describe("NewlineMessageWriter", () => {
  it("writes messages in order, coalescing one tick's lines into one write, and resolves only once the stream drains", async () => {
    const { Writable } = await import("node:stream");
    const { NewlineMessageWriter } = await import("../../src/transport/lineWriter.js");
    const chunks: string[] = [];
    const pendingCallbacks: Array<() => void> = [];
    const slow = new Writable({
      highWaterMark: 16,
      write(chunk, _encoding, callback) {
        chunks.push(String(chunk));
        pendingCallbacks.push(callback);
      },
    });
    const writer = new NewlineMessageWriter(slow);
    let settled = false;
    const first = writer.write({ jsonrpc: "2.0", method: "a", params: { text: "more than sixteen bytes" } } as never);
    void first.then(() => (settled = true));
    const second = writer.write({ jsonrpc: "2.0", method: "b" } as never);
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    while (pendingCallbacks.length > 0) {
      pendingCallbacks.shift()!();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all([first, second]);
    expect(chunks).toEqual(['{"method":"a","params":{"text":"more than sixteen bytes"}}\n{"method":"b"}\n']);
  });

  it("waits on a stalled reader with one drain listener, however many batches and 64 KiB writes wait on it", async () => {
    const { Writable } = await import("node:stream");
    const { NewlineMessageWriter } = await import("../../src/transport/lineWriter.js");
    const stalled = new Writable({ highWaterMark: 16, write() {} });
    const writer = new NewlineMessageWriter(stalled);
    const text = "x".repeat(1000);
    const written: Array<Promise<void>> = [];
    for (let tick = 0; tick < 20; tick++) {
      for (let i = 0; i < 100; i++) written.push(writer.write({ jsonrpc: "2.0", method: "delta", params: { text } } as never));
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(stalled.listenerCount("drain")).toBe(1);
    stalled.destroy();
    await Promise.all(written);
  });
});
