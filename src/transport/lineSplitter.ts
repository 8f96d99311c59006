/** What a chunk of input produced: complete lines, or notice that a line ran past the limit. */
export type LineEvent = { kind: "line"; bytes: Buffer } | { kind: "overflow"; bytes: number };

const NEWLINE = 0x0a;

/**
 * Splits a byte stream into `\n`-terminated lines without rescanning earlier chunks, so a 10 MiB
 * line arriving in 64 KiB pieces costs linear time. A line longer than `maxLineBytes` is dropped
 * as it streams in (never held in memory) and reported once, when its newline arrives.
 */
export class LineSplitter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private overflowBytes = 0;

  constructor(private readonly maxLineBytes: number) {}

  /** Feeds a chunk; returns the events it completes, in order. */
  push(chunk: Buffer): LineEvent[] {
    const events: LineEvent[] = [];
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start);
      const end = newline === -1 ? chunk.length : newline;
      this.append(chunk.subarray(start, end));
      if (newline === -1) break;
      events.push(this.takeLine());
      start = newline + 1;
    }
    return events;
  }

  /** Ends the stream: a last line without a newline still counts. */
  finish(): LineEvent[] {
    if (this.pendingBytes === 0 && this.overflowBytes === 0) return [];
    return [this.takeLine()];
  }

  private append(part: Buffer): void {
    if (part.length === 0) return;
    if (this.overflowBytes > 0 || this.pendingBytes + part.length > this.maxLineBytes) {
      this.overflowBytes += this.pendingBytes + part.length;
      this.pending = [];
      this.pendingBytes = 0;
      return;
    }
    this.pending.push(part);
    this.pendingBytes += part.length;
  }

  private takeLine(): LineEvent {
    const event: LineEvent =
      this.overflowBytes > 0
        ? { kind: "overflow", bytes: this.overflowBytes }
        : { kind: "line", bytes: this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending) };
    this.pending = [];
    this.pendingBytes = 0;
    this.overflowBytes = 0;
    return event;
  }
}
