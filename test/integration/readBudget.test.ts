import { appendFileSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { PassThrough, Writable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { systemClock } from "../../src/runtime/clock.js";
import { ByteBudget } from "../../src/server/byteBudget.js";
import { ClientConnection } from "../../src/server/connection.js";
import { Dispatcher, type HandlerTable } from "../../src/server/dispatcher.js";
import { FsWatches } from "../../src/server/fsWatches.js";
import { fsHandlers } from "../../src/server/handlers/fs.js";
import { RequestScheduler } from "../../src/server/requestScheduler.js";
import { ServerRequestBroker } from "../../src/server/serverRequests.js";
import { NewlineMessageReader } from "../../src/transport/lineReader.js";
import { NewlineMessageWriter } from "../../src/transport/lineWriter.js";
import { AllowedRoots } from "../../src/workspace/allowedRoots.js";
import { memoryLogger } from "../support/memoryClient.js";
import { WAIT_MS } from "../support/serverProcess.js";

/**
 * fs/readFile's read budget counts what a read really holds: a reservation lasts until the
 * answer's line is in the output stream (serializing a large answer takes long after it was
 * queued), and a file that grows while it is read reserves what it grew by.
 */

const KiB = 1024;
const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

function tempDir(): string {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), "aas-read-budget-")));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A budget that reports each reservation and release to the test. */
class WatchedBudget extends ByteBudget {
  reserved = 0;
  onReserve: (bytes: number) => void = () => undefined;
  onRelease: () => void = () => undefined;

  override reserve(bytes: number): () => void {
    const release = super.reserve(bytes);
    this.reserved += bytes;
    this.onReserve(bytes);
    let released = false;
    return () => {
      if (!released) this.onRelease();
      released = true;
      release();
    };
  }
}

/** An output that takes each write at once, as text: what the writer has handed to the stream so far. */
class TextOutput extends Writable {
  text = "";
  private waiters: Array<() => void> = [];

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    this.text += chunk.toString("utf8");
    for (const notify of this.waiters.splice(0)) notify();
    callback();
  }

  /** The message with id `id`, once its whole line has been written. */
  async response(id: unknown): Promise<any> {
    const deadline = Date.now() + WAIT_MS;
    for (;;) {
      const line = this.text.split("\n").slice(0, -1).map((text) => JSON.parse(text)).find((message) => message.id === id);
      if (line) return line;
      if (Date.now() > deadline) throw new Error(`timed out waiting for the answer to ${JSON.stringify(id)}`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 100);
      });
    }
  }
}

/** A connection served by the real fs/* handlers over `root`, with `budget` as the read budget. */
function connect(root: string, budget: ByteBudget, output: Writable): PassThrough {
  const logger = memoryLogger().logger;
  const handlers = fsHandlers(() => new AllowedRoots([root]), { watches: new FsWatches(), clock: systemClock, logger, reads: budget });
  const host = { logger, dispatcher: new Dispatcher(handlers as HandlerTable, new RequestScheduler(), logger), serverRequests: new ServerRequestBroker<ClientConnection>() };
  const input = new PassThrough();
  const connection = new ClientConnection(host, new NewlineMessageReader(input), new NewlineMessageWriter(output));
  connection.markInitialized({ clientName: "test", clientVersion: "1", experimentalApi: false, optOutNotificationMethods: new Set() });
  connection.listen();
  return input;
}

const readFile = (id: number, file: string) => JSON.stringify({ id, method: "fs/readFile", params: { path: file } }) + "\n";

describe("fs/readFile's read budget", () => {
  it("holds a read's reservation until its answer's line is written, not only queued", async () => {
    const root = tempDir();
    const file = path.join(root, "big.bin");
    const content = Buffer.alloc(4 * 1024 * KiB, "budget");
    writeFileSync(file, content);
    const budget = new WatchedBudget(8 * 1024 * KiB);
    const output = new TextOutput();
    // What the client had been sent when the read's bytes were let go.
    let writtenAtRelease: string | undefined;
    budget.onRelease = () => (writtenAtRelease ??= output.text);
    const input = connect(root, budget, output);

    input.write(readFile(1, file));
    const answer = await output.response(1);
    expect(Buffer.from(answer.result.dataBase64, "base64").equals(content)).toBe(true);
    // Released while the base64 was still being made, a client could have every read's answer in
    // memory at once, however small the budget.
    expect(writtenAtRelease).toContain(`"id":1,`);
    expect(writtenAtRelease?.endsWith("\n")).toBe(true);
    // Nothing stays reserved.
    expect(() => budget.reserve(budget.limit)()).not.toThrow();
  });

  it("reserves what a file grew by after it was opened, and refuses the read (-32001) when that does not fit", async () => {
    const root = tempDir();
    const file = path.join(root, "growing.log");
    writeFileSync(file, "x".repeat(KiB));
    const budget = new WatchedBudget(1024 * KiB);
    const output = new TextOutput();
    // A writer appends the moment the read has reserved the size it found: the worst time.
    let grown = 0;
    budget.onReserve = () => {
      if (grown++ === 0) appendFileSync(file, Buffer.alloc(512 * KiB, "y"));
    };
    const input = connect(root, budget, output);

    input.write(readFile(1, file));
    const grew = await output.response(1);
    const bytes = Buffer.from(grew.result.dataBase64, "base64").length;
    expect(bytes).toBe(513 * KiB);
    expect(budget.reserved).toBeGreaterThanOrEqual(bytes);

    // Grown past what the budget has left while another read holds most of it: refused, and nothing stays reserved.
    grown = 0;
    writeFileSync(file, "x".repeat(KiB));
    const other = budget.reserve(700 * KiB);
    input.write(readFile(2, file));
    expect((await output.response(2)).error).toEqual({ code: -32001, message: "Server overloaded; retry later." });
    other();
    expect(() => budget.reserve(budget.limit)()).not.toThrow();
  });

  it("releases the reservation of an answer whose client has gone", async () => {
    const root = tempDir();
    const file = path.join(root, "big.bin");
    writeFileSync(file, Buffer.alloc(4 * 1024 * KiB, "gone"));
    const budget = new WatchedBudget(4 * 1024 * KiB);
    const released = new Promise<void>((resolve) => (budget.onRelease = resolve));
    const output = new TextOutput();
    // The client goes (a broken pipe) the moment the read has reserved its bytes, before the answer is written.
    budget.onReserve = () => output.destroy(Object.assign(new Error("write EPIPE"), { code: "EPIPE" }));
    const input = connect(root, budget, output);

    input.write(readFile(1, file));
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error("the reservation was never released")), WAIT_MS)));
    await Promise.race([released, timeout]).finally(() => clearTimeout(timer));
    expect(() => budget.reserve(budget.limit)()).not.toThrow();
  });
});
