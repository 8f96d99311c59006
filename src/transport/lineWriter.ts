import type { Writable } from "node:stream";
import { AbstractMessageWriter, Emitter, type Event, type Message, type MessageWriter } from "vscode-jsonrpc/node";

// Pending output above this many characters is written at once rather than at the end of the tick.
const PENDING_LIMIT = 64 * 1024;

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
 */
export class NewlineMessageWriter extends AbstractMessageWriter implements MessageWriter {
  private readonly includeJsonrpc: boolean;
  private readonly writtenEmitter = new Emitter<Message>();
  private failed = false;
  private errorCount = 0;
  private pending = "";
  private batch: Promise<void> | undefined;
  private releaseBatch: (() => void) | undefined;

  /** Fires after each message has been handed to the stream, in write order. */
  readonly onDidWrite: Event<Message> = this.writtenEmitter.event;

  constructor(
    private readonly writable: Writable,
    options: NewlineWriterOptions = {},
  ) {
    super();
    this.includeJsonrpc = options.includeJsonrpc ?? false;
    writable.on("error", (error) => this.fail(error));
    writable.on("close", () => this.fireClose());
  }

  write(message: Message): Promise<void> {
    if (this.failed) {
      // Dropped, but announced all the same: work waiting for this message to go out must not wait forever.
      this.writtenEmitter.fire(message);
      return Promise.resolve();
    }
    const { jsonrpc: _ignored, ...rest } = message as Message & Record<string, unknown>;
    this.pending += JSON.stringify(this.includeJsonrpc ? { jsonrpc: "2.0", ...rest } : rest) + "\n";
    // Lines written in one turn of the event loop go out in one write (a burst of deltas is one syscall).
    this.batch ??= this.scheduleBatch();
    const batch = this.batch;
    this.writtenEmitter.fire(message);
    if (this.pending.length >= PENDING_LIMIT) this.writePending();
    return batch;
  }

  /** The promise of the batch being collected: it resolves once the batch is written and the stream is below its high-water mark. */
  private scheduleBatch(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.releaseBatch = resolve;
      setImmediate(() => this.writePending());
    });
  }

  /** Resolves when everything written so far has been flushed to the stream's target. */
  flush(): Promise<void> {
    this.writePending();
    if (this.failed || this.writable.writableLength === 0) return Promise.resolve();
    return new Promise((resolve) => this.writable.write("", () => resolve()));
  }

  private writePending(): void {
    const release = this.releaseBatch;
    this.batch = undefined;
    this.releaseBatch = undefined;
    if (this.pending && !this.failed) {
      const text = this.pending;
      this.pending = "";
      this.writable.write(text);
    }
    if (!release) return;
    if (this.failed || !this.writable.writableNeedDrain) return release();
    const settle = () => {
      this.writable.off("drain", settle);
      this.writable.off("close", settle);
      release();
    };
    this.writable.on("drain", settle);
    this.writable.on("close", settle);
  }

  end(): void {
    this.writePending();
    this.writable.end();
  }

  private fail(error: Error): void {
    this.failed = true;
    this.fireError(error, undefined, ++this.errorCount);
  }
}
