const LF = 10;
const COLON = 58;
const SPACE = 32;

/** Receives the data of one dispatched event: its `data` lines joined with "\n". */
export type SseListener = (data: string) => void;

/**
 * An incremental parser of a `text/event-stream` body (the WHATWG server-sent events rules): bytes
 * go in as they arrive, split anywhere, and each complete event is handed to the listener at once.
 * Lines end with LF, CRLF or CR; `:` lines are comments; fields other than `data` (`event`, `id`,
 * `retry`) are ignored, since the model APIs name each event inside its JSON; a block without
 * `data` dispatches nothing; an event the body ends in the middle of is never dispatched. Work is
 * linear in the bytes: a line split across chunks is joined once.
 */
export class SseParser {
  private readonly decoder = new TextDecoder();
  /** The start of a line whose end has not arrived yet. */
  private partial = "";
  /** The last line ended with CR at the very end of a chunk: a LF opening the next one belongs to it. */
  private afterCr = false;
  private data: string | null = null;

  constructor(private readonly listener: SseListener) {}

  /** Parses the next bytes of the body, dispatching every event they complete. */
  push(chunk: Uint8Array): void {
    const text = this.decoder.decode(chunk, { stream: true });
    if (text.length === 0) return;
    let start = 0;
    if (this.afterCr) {
      this.afterCr = false;
      if (text.charCodeAt(0) === LF) start = 1;
    }
    // Most streams never send CR: then one search for LF per line is all it takes.
    let lf = text.indexOf("\n", start);
    let cr = text.indexOf("\r", start);
    for (;;) {
      let end: number;
      let next: number;
      if (cr === -1 || (lf !== -1 && lf < cr)) {
        if (lf === -1) break;
        end = lf;
        next = lf + 1;
      } else {
        end = cr;
        next = cr + 1;
        if (next === text.length) this.afterCr = true;
        else if (text.charCodeAt(next) === LF) next++;
      }
      if (this.partial === "") {
        this.line(text, start, end);
      } else {
        const line = this.partial + text.slice(start, end);
        this.partial = "";
        this.line(line, 0, line.length);
      }
      start = next;
      if (lf !== -1 && lf < start) lf = text.indexOf("\n", start);
      if (cr !== -1 && cr < start) cr = text.indexOf("\r", start);
    }
    if (start < text.length) this.partial += text.slice(start);
  }

  /** Acts on the line `source[start, end)`, read in place so that lines other than data cost no string. */
  private line(source: string, start: number, end: number): void {
    if (start === end) {
      const { data } = this;
      this.data = null;
      if (data !== null) this.listener(data);
      return;
    }
    // Only `data` or `data:…` is a data line (a comment starts with ":", other fields have other names).
    if (!source.startsWith("data", start) || (end - start > 4 && source.charCodeAt(start + 4) !== COLON)) return;
    const value = end - start <= 5 ? "" : source.slice(source.charCodeAt(start + 5) === SPACE ? start + 6 : start + 5, end);
    this.data = this.data === null ? value : `${this.data}\n${value}`;
  }
}
