import { PassThrough } from "node:stream";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { PRODUCER_WAIT_OUTPUT } from "../../src/transport/lineWriter.js";
import { inProcessServer } from "../support/inProcessServer.js";
import { WAIT_MS } from "../support/serverProcess.js";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const SLOW_READER = "the client reads its output slower than it is written";

/** A client's output pipe that remembers the most output ever queued in it, unread. */
class RecordingOutput extends PassThrough {
  mostQueued = 0;

  override write(chunk: any, ...rest: any[]): boolean {
    const ok = super.write(chunk, ...rest);
    this.mostQueued = Math.max(this.mostQueued, this.writableLength + this.readableLength);
    return ok;
  }
}

/** The server's info log, in memory, with a wait for a line that contains some text. */
function infoLog() {
  const lines: string[] = [];
  const waiters: Array<() => void> = [];
  const logger = pino({ level: "info" }, {
    write: (line: string) => {
      lines.push(line);
      for (const wake of waiters.splice(0)) wake();
    },
  });
  const waitFor = (text: string) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for the log to say "${text}"`)), WAIT_MS);
      const check = () => {
        if (!lines.some((line) => line.includes(text))) return void waiters.push(check);
        clearTimeout(timer);
        resolve();
      };
      check();
    });
  return { logger, waitFor };
}

describe("a streaming turn and a client that reads slowly", () => {
  it("stops reading the model's stream while more than 1 MiB is unread, and streams every delta once the client reads", async () => {
    // ~170 characters of output per delta: 20,000 of them are three times the limit.
    const deltas = 20_000;
    const log = infoLog();
    const output = new RecordingOutput();
    const { input, log: messages } = await inProcessServer({
      responses: [{ items: [{ type: "message", repeat: deltas, delta: "tok " }] }],
      logger: log.logger,
      output,
      cleanups,
    });
    const send = (id: number, method: string, params: object) => input.write(JSON.stringify({ id, method, params }) + "\n");

    send(1, "initialize", { clientInfo: { name: "slow", version: "1" } });
    await messages.response(1);
    send(2, "thread/start", {});
    const threadId = (await messages.response(2)).result.thread.id;

    // The client stops reading, as one busy rendering does, until the server says the turn waits for it.
    output.pause();
    send(3, "turn/start", { threadId, input: [{ type: "text", text: "Stream." }] });
    await log.waitFor(SLOW_READER);
    output.resume();

    const completed = await messages.waitFor((m) => m.method === "turn/completed");
    expect(completed.params.turn.status).toBe("completed");
    expect(messages.messages.filter((m) => m.method === "item/agentMessage/delta")).toHaveLength(deltas);
    const message = messages.messages.find((m) => m.method === "item/completed" && m.params.item.type === "agentMessage");
    expect(message.params.item.text).toBe("tok ".repeat(deltas));
    // Far from all of the 3.4 MB was ever queued: at most the limit, the 64 KiB batch that crossed it, and the pipe's own buffers.
    expect(output.mostQueued).toBeLessThan(PRODUCER_WAIT_OUTPUT + 256 * 1024);
  });
});
