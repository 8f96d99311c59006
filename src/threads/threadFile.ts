import { ftruncateSync, writeSync } from "node:fs";
import { open, truncate, type FileHandle } from "node:fs/promises";
import { isJsonObject } from "../runtime/jsonObject.js";
import type { Logger } from "../runtime/logger.js";
import { TimeSlice } from "../runtime/timeSlice.js";
import { TurnStatus } from "../protocol/turn.js";
import { ThreadRecord } from "./records.js";
import { ThreadHistoryBuilder, type ThreadHistory } from "./threadHistory.js";

/** Where a thread file's intact part ends. */
export interface ThreadFileExtent {
  /** Byte length of the intact prefix; less than the file size when the last line is torn. */
  readonly intactBytes: number;
  readonly torn: boolean;
}

/** How long parsing a thread file holds the event loop at a time: a long thread's file is tens of MB. */
const THREAD_READ_SLICE_MS = 10;

/** Bytes of lines parsed between two looks at the clock: well under a millisecond of work. */
const CHECK_BYTES = 64 * 1024;

/** Bytes read at a time, into one of two buffers: the next piece is read while this one is parsed. */
const PIECE_BYTES = 2 * 1024 * 1024;

/**
 * Reads a thread file, handing each record to `onRecord` as it is parsed. A torn last line (a
 * crash in the middle of a write) is dropped with a warning; everything before it is recovered. A
 * bad line in the middle is skipped, also with a warning.
 *
 * The file is read in pieces, each parsed while the I/O threads read the next: read whole first, a
 * 65 MB file took ~50 ms of reading before any parsing, and was held whole until parsed.
 */
export async function readThreadFile(path: string, logger: Logger, onRecord: (record: ThreadRecord) => void): Promise<ThreadFileExtent> {
  const handle = await open(path, "r");
  let next: Promise<Buffer> = Promise.resolve(Buffer.alloc(0));
  try {
    // The bytes it has now, as readFile reads; a file shorter than a piece needs one buffer, of its size.
    const { size } = await handle.stat();
    const pieceBytes = Math.min(size, PIECE_BYTES);
    const buffers: Array<Buffer | undefined> = [Buffer.allocUnsafe(pieceBytes), undefined];
    next = readPiece(handle, buffers[0]!, 0);
    const slice = new TimeSlice(THREAD_READ_SLICE_MS);
    /** The end of the last whole line read so far, which is where the next line starts. */
    let intactBytes = 0;
    /** The current line's bytes from earlier pieces (copies: their buffers are read into again). */
    let partial: Buffer[] = [];
    let pieceOffset = 0;
    let checkedAt = 0;
    for (let pieces = 1; ; pieces++) {
      const piece = await next;
      if (piece.length === 0) break;
      const nextOffset = pieceOffset + piece.length;
      next = nextOffset < size ? readPiece(handle, (buffers[pieces % 2] ??= Buffer.allocUnsafe(pieceBytes)), nextOffset) : Promise.resolve(Buffer.alloc(0));
      let start = 0;
      for (let newline = piece.indexOf(0x0a); newline !== -1; newline = piece.indexOf(0x0a, start)) {
        // The clock is read every CHECK_BYTES, and awaited only when the slice is used up: either, per line, would cost more than the line.
        if (intactBytes - checkedAt >= CHECK_BYTES) {
          checkedAt = intactBytes;
          if (slice.usedUp) await slice.pause();
        }
        // Decoded in place: a subarray per line was a Buffer object per line (~30 ms of 166,000 lines).
        const text = partial.length === 0 ? piece.toString("utf8", start, newline) : Buffer.concat([...partial, piece.subarray(start, newline)]).toString("utf8");
        partial = [];
        const record = parseRecord(text);
        if (record) onRecord(record);
        else if (text.length > 0) logger.warn({ path, offset: intactBytes }, "skipped an unreadable line in a thread file");
        start = newline + 1;
        intactBytes = pieceOffset + start;
      }
      if (start < piece.length) partial.push(Buffer.from(piece.subarray(start)));
      pieceOffset += piece.length;
    }
    if (partial.length === 0) return { intactBytes, torn: false };
    // The last line has no newline: whole when it parses, else cut short by a crash mid-write.
    const record = parseRecord(Buffer.concat(partial).toString("utf8"));
    if (record) {
      onRecord(record);
      return { intactBytes: pieceOffset, torn: false };
    }
    logger.warn({ path, bytes: pieceOffset - intactBytes }, "thread file ends in a torn line; recovered the records before it");
    return { intactBytes, torn: true };
  } finally {
    // A read still in flight (a record threw) must not land on a closed handle.
    await next.catch(() => undefined);
    await handle.close();
  }
}

/** The bytes of `handle` from `position` read into `buffer`: as many as one read gives, none past the end of the file. */
async function readPiece(handle: FileHandle, buffer: Buffer, position: number): Promise<Buffer> {
  const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
  return buffer.subarray(0, bytesRead);
}

/**
 * Reads a thread file into its history, each record folded in as it is parsed: an array of every
 * record, held until the fold, was hundreds of thousands of objects for a long thread that the
 * garbage collector copied and promoted before they died (~70 ms of a 50,000-item resume).
 */
export async function readThreadHistory(path: string, logger: Logger): Promise<ThreadFileExtent & { readonly history: ThreadHistory }> {
  const builder = new ThreadHistoryBuilder();
  const extent = await readThreadFile(path, logger, (record) => builder.add(record));
  return { ...extent, history: builder.finish() };
}

function parseRecord(line: string): ThreadRecord | undefined {
  if (line.trim().length === 0) return undefined;
  try {
    const value: unknown = JSON.parse(line);
    if (isContentRecord(value)) return value;
    const plain = plainRecord(value);
    if (plain) return plain;
    const parsed = ThreadRecord.safeParse(value);
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

type ContentRecord = Extract<ThreadRecord, { type: "item" | "model" }>;

/**
 * `item` and `model` records, nearly every line of a long thread, are this server's own output (the
 * items it sent on the wire, the history it sent the model): their envelope is checked and their
 * payload trusted. Validating them with zod was most of the time to resume a long thread (~140 ms
 * of ~250 for 10,000 records on a fresh process). Any other record (identity, settings and
 * policies, goals, usage, turn ends) and any line failing this check go through the full schema.
 */
function isContentRecord(value: unknown): value is ContentRecord {
  if (!isJsonObject(value) || typeof value.at !== "number" || typeof value.turnId !== "string") return false;
  if (value.type === "item") return isJsonObject(value.item) && typeof value.item.type === "string" && typeof value.item.id === "string";
  if (value.type === "model") return Array.isArray(value.items) && value.items.every((item) => isJsonObject(item) && typeof item.type === "string");
  return false;
}

/**
 * Turn starts and ends and token usage, the other records a long thread has tens of thousands of
 * (a 50,000-item thread has 66,000), rebuilt as the schema rebuilds them (its fields in its order,
 * nothing else) when they have the plain shape this server writes: zod's walk of them was ~45 ms
 * of resuming such a thread. Undefined for anything else (a turn's error, a field of another
 * type), which the schema then decides.
 */
function plainRecord(value: unknown): ThreadRecord | undefined {
  // Finite, as the schema's numbers: JSON.parse reads 1e400 as Infinity.
  if (!isJsonObject(value) || !Number.isFinite(value.at) || typeof value.turnId !== "string") return undefined;
  const at = value.at as number;
  const turnId = value.turnId;
  switch (value.type) {
    case "turnStarted":
      return { type: "turnStarted", at, turnId };
    case "turnCompleted": {
      const status = value.status;
      if (!isTurnStatus(status) || !(value.error === null || value.error === undefined)) return undefined;
      // An absent `error` stays absent, as the schema leaves it.
      return "error" in value ? { type: "turnCompleted", at, turnId, status, error: null } : { type: "turnCompleted", at, turnId, status };
    }
    case "usage":
      return isJsonObject(value.usage) ? plainUsage(at, turnId, value.usage) : undefined;
    default:
      return undefined;
  }
}

/** A usage record whose counts are all safe integers, its counts in the schema's order; undefined otherwise. */
function plainUsage(at: number, turnId: string, usage: Record<string, unknown>): ThreadRecord | undefined {
  const { totalTokens, inputTokens, cachedInputTokens, cacheWriteInputTokens, outputTokens, reasoningOutputTokens } = usage;
  const counts = "cacheWriteInputTokens" in usage
    ? { totalTokens, inputTokens, cachedInputTokens, cacheWriteInputTokens, outputTokens, reasoningOutputTokens }
    : { totalTokens, inputTokens, cachedInputTokens, outputTokens, reasoningOutputTokens };
  if (!Object.values(counts).every(Number.isSafeInteger)) return undefined;
  return { type: "usage", at, turnId, usage: counts as Extract<ThreadRecord, { type: "usage" }>["usage"] };
}

function isTurnStatus(status: unknown): status is TurnStatus {
  return typeof status === "string" && (TurnStatus.options as readonly string[]).includes(status);
}

/**
 * Appends records to a thread file, one JSON line each, in call order. Each record reaches the OS
 * when appended (a killed process loses nothing written); `durable` records are also fsynced
 * (`fdatasync`: the data and the file size, without the timestamps an `fsync` would add).
 *
 * The line is written synchronously: appending a few hundred bytes to the page cache takes
 * microseconds, while an asynchronous write is a round trip through libuv's four I/O threads,
 * where it queues behind whatever else is pending (module loading on a fresh server, other
 * threads' fsyncs) and costs context switches on a small machine. Only the fsync is asynchronous.
 */
export class ThreadFileWriter {
  /** Settles once every fsync started so far has. */
  private tail: Promise<void> = Promise.resolve();

  private constructor(
    private readonly handle: FileHandle,
    /** Where the file is, for errors a user reads (it may be renamed after it is opened). */
    public path: string,
    /** The bytes of whole records written so far: a failed append is cut back to here. */
    private size: number,
  ) {}

  /** Opens for appending; `intactBytes` cuts off a torn last line first so appends stay parseable. */
  static async open(path: string, intactBytes?: number): Promise<ThreadFileWriter> {
    if (intactBytes !== undefined) await truncate(path, intactBytes);
    const handle = await open(path, "a");
    return new ThreadFileWriter(handle, path, (await handle.stat()).size);
  }

  /** Creates a file that must not exist yet, for appending. */
  static async create(path: string): Promise<ThreadFileWriter> {
    return new ThreadFileWriter(await open(path, "ax"), path, 0);
  }

  /**
   * Appends one record; resolves once written (and fsynced when `durable`). A write that fails
   * midway (a full disk) is cut back, so the file never holds half a line before later ones;
   * it throws at once (not through the promise), naming the file, so a caller knows before it
   * goes on whether the record was written.
   */
  append(record: ThreadRecord, durable: boolean): Promise<void> {
    const bytes = Buffer.from(JSON.stringify(record) + "\n");
    try {
      for (let written = 0; written < bytes.length; ) written += writeSync(this.handle.fd, bytes, written);
      this.size += bytes.length;
    } catch (error) {
      try {
        ftruncateSync(this.handle.fd, this.size);
      } catch {
        // Truncating frees space and cannot fail for space; if it fails anyway, reads drop a torn last line.
      }
      throw Object.assign(error as NodeJS.ErrnoException, { path: this.path });
    }
    if (!durable) return Promise.resolve();
    const synced = this.handle.datasync();
    this.tail = Promise.all([this.tail, synced.catch(() => undefined)]).then(() => undefined);
    return synced;
  }

  /** Waits for pending fsyncs, fsyncs and closes. */
  async close(): Promise<void> {
    await this.tail;
    await this.handle.datasync().catch(() => undefined);
    await this.handle.close();
  }
}
