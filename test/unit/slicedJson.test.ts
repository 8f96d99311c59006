import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { NewlineMessageWriter } from "../../src/transport/lineWriter.js";
import { base64Json, LargeResult, serializeSliced } from "../../src/transport/slicedJson.js";

/** Resolves after one turn of the event loop. */
const tick = () => new Promise((resolve) => setImmediate(resolve));

/** A result shaped like `thread/resume`'s: `turns` turns of `items` items each. */
function history(turns: number, items: number): object {
  return {
    thread: {
      id: "t",
      turns: Array.from({ length: turns }, (_, turn) => ({
        id: `turn-${turn}`,
        items: Array.from({ length: items }, (_, item) => ({ type: "agentMessage", id: `${turn}-${item}`, text: "The command printed the numbers. ".repeat(4), phase: null })),
        status: "completed",
      })),
    },
  };
}

describe("serializeSliced", () => {
  it("makes exactly JSON.stringify's text, toJSON, left-out members and surrogate pairs across pieces included", async () => {
    const longText = "é".repeat(1024 * 1024 - 1) + "😀" + '"\\\n\u0001'.repeat(1000);
    const value = {
      a: [1, "two", null, undefined, () => 3, { b: undefined, c: Symbol("s"), d: true }],
      when: new Date(0),
      custom: { toJSON: (key: string) => ({ key }) },
      nested: { one: { two: { three: { four: { five: { six: [undefined, NaN, -0] } } } } } },
      longText,
      boxed: [new String("s"), new Number(1), new Boolean(false)],
      gone: undefined,
    };
    const bytes = Buffer.concat(await serializeSliced(value));
    expect(bytes.toString("utf8")).toBe(JSON.stringify(value));
    expect(Buffer.concat(await serializeSliced([undefined, "x"]))).toEqual(Buffer.from(JSON.stringify([undefined, "x"])));
  });

  it("encodes a base64 field in pieces, as toString('base64') of the whole", async () => {
    const data = Buffer.from(Array.from({ length: 3 * 256 * 1024 * 2 + 5 }, (_, i) => (i * 7) % 256));
    const result = { dataBase64: base64Json(data) };
    expect(Buffer.concat(await serializeSliced(result)).toString()).toBe(JSON.stringify({ dataBase64: data.toString("base64") }));
    expect(JSON.stringify(result)).toBe(JSON.stringify({ dataBase64: data.toString("base64") }));
  });

  it("lets the event loop run while it serializes a large value", async () => {
    let turns = 0;
    const counting = setInterval(() => turns++, 0);
    try {
      // About 8 MB of JSON: tens of ms or more in one JSON.stringify call on a slow machine.
      await serializeSliced(history(500, 100));
    } finally {
      clearInterval(counting);
    }
    expect(turns).toBeGreaterThan(2);
  });
});

describe("NewlineMessageWriter with a large result", () => {
  /** A writer into a stream that keeps what it is given, as text. */
  function capture(): { writer: NewlineMessageWriter; text: () => string } {
    const chunks: Buffer[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        chunks.push(Buffer.from(chunk));
        callback();
      },
    });
    return { writer: new NewlineMessageWriter(sink), text: () => Buffer.concat(chunks).toString("utf8") };
  }

  it("writes the line JSON.stringify would, and holds what follows until it is out, but not an answer that nothing else waits behind", async () => {
    const { writer, text } = capture();
    const large = history(300, 50);
    void writer.write({ jsonrpc: "2.0", method: "before" } as never);
    void writer.write({ jsonrpc: "2.0", id: 1, result: new LargeResult(large) } as never);
    void writer.write({ jsonrpc: "2.0", id: 2, result: { quick: true } } as never);
    void writer.write({ jsonrpc: "2.0", method: "after" } as never);
    void writer.write({ jsonrpc: "2.0", id: 3, result: {} } as never);
    await writer.flush();
    const lines = text().split("\n");
    // Compared apart: a failure would print the 1 MB line.
    expect(lines[2] === JSON.stringify({ id: 1, result: large })).toBe(true);
    expect(lines.filter((_, index) => index !== 2)).toEqual(['{"method":"before"}', '{"id":2,"result":{"quick":true}}', '{"method":"after"}', '{"id":3,"result":{}}', ""]);
  });

  it("never lets an answer overtake a message held behind a second large result", async () => {
    const { writer, text } = capture();
    void writer.write({ jsonrpc: "2.0", id: 1, result: new LargeResult(history(300, 50)) } as never);
    void writer.write({ jsonrpc: "2.0", method: "turn/completed" } as never);
    void writer.write({ jsonrpc: "2.0", id: 2, result: new LargeResult(history(300, 50)) } as never);
    // Written while the notification waits behind the second large result: it must wait too.
    void writer.write({ jsonrpc: "2.0", id: 3, result: { turn: "next" } } as never);
    await writer.flush();
    const order = text()
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line) as { id?: number; method?: string })
      .map((message) => message.method ?? message.id);
    expect(order).toEqual([1, "turn/completed", 2, 3]);
  });

  it("serves the event loop meanwhile, and ends the output only after the line", async () => {
    const { writer, text } = capture();
    let turns = 0;
    const counting = setInterval(() => turns++, 0);
    void writer.write({ jsonrpc: "2.0", id: "big", result: new LargeResult(history(500, 100)) } as never);
    writer.end();
    await tick();
    expect(text()).toBe("");
    await writer.flush();
    clearInterval(counting);
    expect(turns).toBeGreaterThan(2);
    expect(text().startsWith('{"id":"big","result":{"thread":')).toBe(true);
    expect(text().endsWith("}}\n")).toBe(true);
  });
});
