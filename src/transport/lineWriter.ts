import type { Writable } from "node:stream";
import { AbstractMessageWriter, Emitter, type Event, type Message, type MessageWriter } from "vscode-jsonrpc/node";

/** Options of {@link NewlineMessageWriter}. */
export interface NewlineWriterOptions {
  /** Add `"jsonrpc": "2.0"` to every message; Codex omits it, so the default is false. */
  includeJsonrpc?: boolean;
}

/**
 * Writes one JSON message per line. Each message is serialized and handed to the stream at the
 * moment `write` is called, so messages go out in call order. The returned promise resolves once
 * the stream is below its high-water mark: a producer that awaits it is slowed to the pace of the
 * reader, and the writer itself never holds messages back.
 */
export class NewlineMessageWriter extends AbstractMessageWriter implements MessageWriter {
  private readonly includeJsonrpc: boolean;
  private readonly writtenEmitter = new Emitter<Message>();
  private drained: Promise<void> | undefined;
  private failed = false;
  private errorCount = 0;

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
    const line = JSON.stringify(this.includeJsonrpc ? { jsonrpc: "2.0", ...rest } : rest) + "\n";
    const belowHighWaterMark = this.writable.write(line);
    this.writtenEmitter.fire(message);
    if (belowHighWaterMark) return this.drained ?? Promise.resolve();
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

  /** Resolves when everything written so far has been flushed to the stream's target. */
  flush(): Promise<void> {
    if (this.failed || this.writable.writableLength === 0) return Promise.resolve();
    return new Promise((resolve) => this.writable.write("", () => resolve()));
  }

  end(): void {
    this.writable.end();
  }

  private fail(error: Error): void {
    this.failed = true;
    this.fireError(error, undefined, ++this.errorCount);
  }
}
