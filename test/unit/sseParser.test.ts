import { describe, expect, it } from "vitest";
import { ModelError } from "../../src/agent/model/modelError.js";
import { SseParser } from "../../src/agent/model/sseParser.js";
import { ssePayloads } from "../../src/agent/model/ssePayloads.js";

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

function parse(chunks: readonly Uint8Array[]): string[] {
  const events: string[] = [];
  const parser = new SseParser((data) => events.push(data));
  for (const chunk of chunks) parser.push(chunk);
  return events;
}

/** Every way of cutting `body` in two, and one byte at a time. */
function splits(body: Uint8Array): Uint8Array[][] {
  const cuts = Array.from({ length: body.length + 1 }, (_, at) => [body.subarray(0, at), body.subarray(at)]);
  return [...cuts, Array.from(body, (byte) => Uint8Array.of(byte))];
}

function streamOf(chunks: readonly string[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(bytes(chunk));
      controller.close();
    },
  });
}

async function collect(body: ReadableStream<Uint8Array>): Promise<{ batches: unknown[][]; error: unknown }> {
  const batches: unknown[][] = [];
  try {
    for await (const batch of ssePayloads(body)) batches.push(batch);
  } catch (error) {
    return { batches, error };
  }
  return { batches, error: null };
}

describe("SseParser", () => {
  const body = [
    ": a comment, then a keep-alive block without data\n",
    "event: ping\n\n",
    "event: response.output_text.delta\n",
    'data: {"type":"one"}\n',
    "\n",
    "id: 7\nretry: 1000\ndata: first line\ndata:second line, no space\ndata:  two spaces keep one\n\n",
    "data\n\n",
    "data:\n\n",
    "datum: not a data field\ndata: après “quotes” 🎉\n\n",
    "data: crlf\r\n\r\n",
    "data: two lines\r\ndata: with crlf\r\n\r\n",
    "data: lone cr\r\rdata: mixed\r\n\n",
    "data: never dispatched: the body ends before its blank line\n",
  ].join("");
  const expected = [
    '{"type":"one"}',
    "first line\nsecond line, no space\n two spaces keep one",
    "",
    "",
    "après “quotes” 🎉",
    "crlf",
    "two lines\nwith crlf",
    "lone cr",
    "mixed",
  ];

  it("dispatches the data of each complete event, however the body is cut into chunks", () => {
    for (const chunks of splits(bytes(body))) expect(parse(chunks)).toEqual(expected);
  });

  it("skips a byte-order mark at the start of the body", () => {
    expect(parse([Uint8Array.of(0xef, 0xbb, 0xbf), bytes("data: x\n\n")])).toEqual(["x"]);
  });

  it("never dispatches an event the body ends in, with or without its last line break", () => {
    expect(parse([bytes("data: a\n\ndata: b")])).toEqual(["a"]);
    expect(parse([bytes("data: a\n\ndata: b\n")])).toEqual(["a"]);
    expect(parse([bytes("data: a\r\n\r\ndata: b\r")])).toEqual(["a"]);
  });
});

describe("ssePayloads", () => {
  it("yields the JSON payloads of each chunk together, and nothing after [DONE]", async () => {
    const { batches, error } = await collect(streamOf(['data: {"n":1}\n\ndata: {"n":2}\n\ndata: {"n"', ':3}\n\n', 'data: [DONE]\n\ndata: {"n":4}\n\n']));
    expect(error).toBeNull();
    expect(batches).toEqual([[{ n: 1 }, { n: 2 }], [{ n: 3 }]]);
  });

  it("turns a payload carrying `error` into a stream error, after the payloads before it", async () => {
    const { batches, error } = await collect(streamOf(['data: {"n":1}\n\ndata: {"error":{"message":"overloaded"}}\n\ndata: {"n":2}\n\n']));
    expect(batches).toEqual([[{ n: 1 }]]);
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ message: "overloaded", kind: "stream", info: { responseStreamDisconnected: { httpStatusCode: null } } });
    const other = await collect(streamOf(['data: {"error":{"code":"x"}}\n\n']));
    expect(other.error).toMatchObject({ message: '{"code":"x"}', kind: "stream" });
  });

  it("throws the SyntaxError of data that is not JSON", async () => {
    const { batches, error } = await collect(streamOf(['data: {"n":1}\n\ndata: {oops\n\n']));
    expect(batches).toEqual([[{ n: 1 }]]);
    expect(error).toBeInstanceOf(SyntaxError);
  });

  it("cancels the body when the reader stops early", async () => {
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(bytes('data: {"n":1}\n\n'));
      },
      cancel() {
        cancelled = true;
      },
    });
    for await (const batch of ssePayloads(body)) {
      expect(batch).toEqual([{ n: 1 }]);
      break;
    }
    expect(cancelled).toBe(true);
  });
});
