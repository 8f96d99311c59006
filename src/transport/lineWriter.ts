import type { Writable } from "node:stream";
import { AbstractMessageWriter, type Message, type MessageWriter } from "vscode-jsonrpc/node";
import { serializeMessage } from "./lineFormat.js";
import { LargeResult, serializeSliced } from "./slicedJson.js";

// Pending output above this many characters is written at once rather than at the end of the tick.
const PENDING_LIMIT = 64 * 1024;

/** Output queued in the stream (characters) past which the writer reports itself backed up, until the stream drains. */
export const MAX_QUEUED_OUTPUT = 16 * 1024 * 1024;

/** Stands in for a large result while the rest of its line is serialized. */
const RESULT_MARK = "\u0000large result\u0000";
const RESULT_MARK_JSON = JSON.stringify(RESULT_MARK);
/**
 * Output queued in the stream (characters) past which a producer that can wait (a streaming turn)
 * is asked to, until the stream drains: it bounds what a slow reader makes the server hold.
 */
export const PRODUCER_WAIT_OUTPUT = 1024 * 1024;

/** Options of {@link NewlineMessageWriter}. */
export interface NewlineWriterOptions {
  /** Add `"jsonrpc": "2.0"` to every message; Codex omits it, so the default is false. */
  includeJsonrpc?: boolean;
}

/**
 * Writes one JSON message per line. Each message is serialized when `write` is called, so messages
 * go out in call order; lines written in the same turn of the event loop are coalesced into one
 * stream write (up to 64 Ki characters). The returned promise resolves once the stream is below
 * its high-water mark: a producer that awaits it is slowed to the pace of the reader.
 *
 * A response with a {@link LargeResult} is serialized in slices, so the event loop is not held for
 * the whole of it; the messages written after it are held back until it is out, in call order. A
 * response written while nothing else is held goes out at once: the client matches it by id, and
 * a request that waits on no other is answered while a large one is serialized.
 */
export class NewlineMessageWriter extends AbstractMessageWriter implements MessageWriter {
  private readonly includeJsonrpc: boolean;
  // Plain listeners, not an Emitter: this runs for every delta, and an Emitter copies its listener lists on each fire.
  private readonly writtenListeners: Array<(message: Message) => void> = [];
  private readonly backedUpListeners: Array<(backedUp: boolean) => void> = [];
  private backedUp = false;
  private failed = false;
  private errorCount = 0;
  private pending = "";
  private batch: Promise<void> | undefined;
  private releaseBatch: (() => void) | undefined;
  private drained: Promise<void> | undefined;
  /** Large results being serialized, in order: output is held until the last one is written. */
  private held: Promise<void> | undefined;
  /** Lines held behind a large result that is not the last one (its `earlier`), not yet written. */
  private heldLines = 0;

  constructor(
    private readonly writable: Writable,
    options: NewlineWriterOptions = {},
  ) {
    super();
    this.includeJsonrpc = options.includeJsonrpc ?? false;
    writable.on("error", (error) => this.fail(error));
    writable.on("close", () => this.fireClose());
  }

  /** Registers a listener called after each message has been handed to the stream, in write order. */
  onDidWrite(listener: (message: Message) => void): void {
    this.writtenListeners.push(listener);
  }

  /**
   * Registers a listener told `true` when more than {@link MAX_QUEUED_OUTPUT} is queued in the
   * stream (the reader is not keeping up) and `false` once it has drained.
   */
  onBackedUp(listener: (backedUp: boolean) => void): void {
    this.backedUpListeners.push(listener);
  }

  /**
   * Undefined while the reader keeps up; once more than {@link PRODUCER_WAIT_OUTPUT} is queued, a
   * promise that resolves when the stream has drained (or closed). Unlike the promise `write`
   * returns, it costs nothing while the reader keeps up, so a producer can ask after every delta.
   */
  caughtUp(): Promise<void> | undefined {
    if (this.failed || this.writable.writableLength <= PRODUCER_WAIT_OUTPUT) return undefined;
    return this.whenDrained();
  }

  write(message: Message): Promise<void> {
    const result = (message as { result?: unknown }).result;
    if (this.failed) {
      // Dropped, but announced all the same: work waiting for this message to go out must not wait forever.
      this.announce(message);
      if (result instanceof LargeResult) result.written();
      return Promise.resolve();
    }
    if (result instanceof LargeResult) this.holdForLarge(message, result);
    else if (this.held && !this.pending && this.heldLines === 0 && isResponse(message)) this.writable.write(serializeMessage(message, this.includeJsonrpc));
    else this.pending += serializeMessage(message, this.includeJsonrpc);
    // Lines written in one turn of the event loop go out in one write (a burst of deltas is one syscall).
    this.batch ??= this.scheduleBatch();
    const batch = this.batch;
    this.announce(message);
    if (this.pending.length >= PENDING_LIMIT) this.writeText();
    return batch;
  }

  /**
   * Starts serializing a large result at once (what the response says is the state when it was
   * written), and holds the output until its line is written: first the lines before it, then its
   * own, its result as the chunks the serializer made.
   */
  private holdForLarge(message: Message, result: LargeResult): void {
    const line = serializeMessage({ ...message, result: RESULT_MARK }, this.includeJsonrpc);
    // The last occurrence: the id, which comes before the result, is the client's and may be any string.
    const at = line.lastIndexOf(RESULT_MARK_JSON);
    // What was written before it goes out now, or, behind another large result, after that one.
    this.writeText();
    const earlier = this.pending;
    this.pending = "";
    // Until they are out, an answer written meanwhile waits too: it must not overtake them.
    if (earlier) this.heldLines++;
    const chunks = serializeSliced(result.value).catch((error: Error) => {
      // As a result JSON.stringify would refuse: reported, and the response is not written.
      this.fireError(error, message, ++this.errorCount);
      return undefined;
    });
    const held = (this.held ?? Promise.resolve()).then(async () => {
      const serialized = await chunks;
      try {
        if (!this.failed && earlier) this.writable.write(earlier);
        if (!this.failed && serialized) {
          this.writable.write(line.slice(0, at));
          for (const chunk of serialized) this.writable.write(chunk);
          this.writable.write(line.slice(at + RESULT_MARK_JSON.length));
          this.checkBackedUp();
        }
      } finally {
        if (earlier) this.heldLines--;
        // Not when the response was announced: until now its bytes and chunks were still held here.
        result.written();
      }
      if (this.held !== held) return;
      this.held = undefined;
      this.writeText();
    });
    this.held = held;
  }

  private announce(message: Message): void {
    for (const listener of this.writtenListeners) listener(message);
  }

  /** The promise of the batch being collected: it resolves once the batch is written and the stream is below its high-water mark. */
  private scheduleBatch(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.releaseBatch = resolve;
      setImmediate(() => this.writePending());
    });
  }

  /** Resolves when everything written so far has been flushed to the stream's target. */
  async flush(): Promise<void> {
    while (this.held) await this.held;
    this.writePending();
    if (this.failed || this.writable.writableLength === 0) return Promise.resolve();
    return new Promise((resolve) => this.writable.write("", () => resolve()));
  }

  /** Ends the batch being collected: writes what is pending and releases its writers once the stream drains. */
  private writePending(): void {
    const release = this.releaseBatch;
    this.batch = undefined;
    this.releaseBatch = undefined;
    this.writeText();
    if (!release) return;
    if (this.failed || !this.writable.writableNeedDrain) return release();
    void this.whenDrained().then(release);
  }

  private writeText(): void {
    if (!this.pending || this.failed || this.held) return;
    const text = this.pending;
    this.pending = "";
    this.writable.write(text);
    this.checkBackedUp();
  }

  private checkBackedUp(): void {
    if (!this.backedUp && this.writable.writableLength > MAX_QUEUED_OUTPUT) this.reportBackedUp();
  }

  private reportBackedUp(): void {
    this.backedUp = true;
    for (const listener of this.backedUpListeners) listener(true);
    void this.whenDrained().then(() => {
      this.backedUp = false;
      for (const listener of this.backedUpListeners) listener(false);
    });
  }

  /** One wait for `drain` shared by every batch written meanwhile, so a stalled reader adds no listeners. */
  private whenDrained(): Promise<void> {
    this.drained ??= new Promise<void>((resolve) => {
      const settle = () => {
        this.writable.off("drain", settle);
        this.writable.off("close", settle);
        this.drained = undefined;
        resolve();
      };
      this.writable.on("drain", settle);
      this.writable.on("close", settle);
    });
    return this.drained;
  }

  end(): void {
    // A large result being serialized is written first.
    if (this.held) {
      void this.held.then(() => this.end());
      return;
    }
    this.writePending();
    this.writable.end();
  }

  private fail(error: Error): void {
    this.failed = true;
    this.fireError(error, undefined, ++this.errorCount);
  }
}

function isResponse(message: Message): boolean {
  return "id" in message && !("method" in message);
}
