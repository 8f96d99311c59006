import type { Readable } from "node:stream";
import {
  AbstractMessageReader,
  Emitter,
  type DataCallback,
  type Disposable,
  type Event,
  type Message,
} from "vscode-jsonrpc/node";
import { ErrorCode } from "../protocol/jsonrpc.js";
import { parseEnvelope, type InvalidMessage } from "./envelope.js";
import { LineSplitter } from "./lineSplitter.js";

/** Default limit on one incoming line: 64 MiB. */
export const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024;

/** Options of {@link NewlineMessageReader}. */
export interface NewlineReaderOptions {
  maxLineBytes?: number;
}

/**
 * Reads newline-delimited JSON-RPC messages (`\n` or `\r\n`) from a byte stream. Lines that are
 * not acceptable messages are reported on {@link onInvalidMessage} so the server can answer them;
 * the stream goes on.
 */
export class NewlineMessageReader extends AbstractMessageReader {
  private readonly invalidEmitter = new Emitter<InvalidMessage>();
  private readonly ignoredEmitter = new Emitter<string>();
  private interceptor: ((message: Message) => boolean) | undefined;
  private stopListening: (() => void) | undefined;
  private readonly splitter: LineSplitter;
  private readonly maxLineBytes: number;

  /** Fires for each line that must be answered with an error. */
  readonly onInvalidMessage: Event<InvalidMessage> = this.invalidEmitter.event;
  /** Fires for each line that is dropped without an answer (a malformed response), with why. */
  readonly onIgnoredMessage: Event<string> = this.ignoredEmitter.event;

  constructor(
    private readonly readable: Readable,
    options: NewlineReaderOptions = {},
  ) {
    super();
    this.maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    this.splitter = new LineSplitter(this.maxLineBytes);
  }

  listen(callback: DataCallback): Disposable {
    const onData = (chunk: Buffer | string) => {
      const bytes = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk;
      for (const event of this.splitter.push(bytes)) this.handleLine(event, callback);
    };
    const onEnd = () => {
      for (const event of this.splitter.finish()) this.handleLine(event, callback);
      this.fireClose();
    };
    const onError = (error: Error) => this.fireError(error);
    this.readable.on("data", onData);
    this.readable.on("end", onEnd);
    this.readable.on("error", onError);
    this.stopListening = () => {
      this.readable.off("data", onData);
      this.readable.off("end", onEnd);
      this.readable.off("error", onError);
      this.readable.pause();
    };
    return { dispose: () => this.stop() };
  }

  /**
   * Sees each message as it is read, in order, before vscode-jsonrpc queues it; returning true
   * consumes it. (vscode-jsonrpc's queue is keyed by id, so a second message with the id of one
   * still queued would replace it: such messages must be settled here.)
   */
  setInterceptor(interceptor: (message: Message) => boolean): void {
    this.interceptor = interceptor;
  }

  /** Holds reading back (the stream then pushes back on the writer) until {@link resume}; nothing once stopped. */
  pause(): void {
    if (this.stopListening) this.readable.pause();
  }

  /** Reads on after {@link pause}; nothing once stopped. */
  resume(): void {
    if (this.stopListening) this.readable.resume();
  }

  /** Stops reading: lines not read yet stay in the stream, unread. */
  stop(): void {
    this.stopListening?.();
    this.stopListening = undefined;
  }

  private handleLine(event: ReturnType<LineSplitter["push"]>[number], callback: DataCallback): void {
    if (event.kind === "overflow") {
      this.invalidEmitter.fire({
        id: null,
        code: ErrorCode.InvalidRequest,
        message: `Invalid request: message of ${event.bytes} bytes exceeds the limit of ${this.maxLineBytes} bytes`,
      });
      return;
    }
    const text = event.bytes.toString("utf8").trim();
    if (text.length === 0) return;
    const envelope = parseEnvelope(text);
    if (envelope.kind === "message") {
      if (!this.interceptor?.(envelope.message)) callback(envelope.message);
    }
    else if (envelope.kind === "invalid") this.invalidEmitter.fire(envelope.invalid);
    else this.ignoredEmitter.fire(envelope.reason);
  }
}
