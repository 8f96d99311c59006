import { ftruncateSync, writeSync } from "node:fs";
import { open, readFile, truncate, type FileHandle } from "node:fs/promises";
import { isJsonObject } from "../runtime/jsonObject.js";
import type { Logger } from "../runtime/logger.js";
import { TimeSlice } from "../runtime/timeSlice.js";
import { ThreadRecord } from "./records.js";

/** What a thread file holds, and where its intact part ends. */
export interface ThreadFileContents {
  readonly records: ThreadRecord[];
  /** Byte length of the intact prefix; less than the file size when the last line is torn. */
  readonly intactBytes: number;
  readonly torn: boolean;
}

/** How long parsing a thread file holds the event loop at a time: a long thread's file is tens of MB. */
export const THREAD_READ_SLICE_MS = 10;

/** Bytes of lines parsed between two looks at the clock: well under a millisecond of work. */
const CHECK_BYTES = 64 * 1024;

/**
 * Reads a thread file. A torn last line (a crash in the middle of a write) is dropped with a
 * warning; everything before it is recovered. A bad line in the middle is skipped, also with a warning.
 */
export async function readThreadFile(path: string, logger: Logger): Promise<ThreadFileContents> {
  const bytes = await readFile(path);
  const records: ThreadRecord[] = [];
  const slice = new TimeSlice(THREAD_READ_SLICE_MS);
  let start = 0;
  let intactBytes = 0;
  let torn = false;
  let checkedAt = 0;
  while (start < bytes.length) {
    // The clock is read every CHECK_BYTES, and awaited only when the slice is used up: either, per line, would cost more than the line.
    if (start - checkedAt >= CHECK_BYTES) {
      checkedAt = start;
      if (slice.usedUp) await slice.pause();
    }
    const newline = bytes.indexOf(0x0a, start);
    const end = newline === -1 ? bytes.length : newline;
    const record = parseRecord(bytes.subarray(start, end).toString("utf8"));
    if (newline === -1) {
      if (record) {
        records.push(record);
        intactBytes = bytes.length;
      } else {
        torn = true;
        logger.warn({ path, bytes: bytes.length - start }, "thread file ends in a torn line; recovered the records before it");
      }
      break;
    }
    if (record) records.push(record);
    else if (end > start) logger.warn({ path, offset: start }, "skipped an unreadable line in a thread file");
    start = newline + 1;
    intactBytes = start;
  }
  return { records, intactBytes, torn };
}

function parseRecord(line: string): ThreadRecord | undefined {
  if (line.trim().length === 0) return undefined;
  try {
    const value: unknown = JSON.parse(line);
    if (isContentRecord(value)) return value;
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
