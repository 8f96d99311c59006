import { runSliced, TimeSlice, type Steps } from "../runtime/timeSlice.js";

/** How long serializing one large value holds the event loop at a time. */
export const SERIALIZE_SLICE_MS = 10;

/** Characters of JSON gathered before they are encoded as one UTF-8 chunk. */
const CHUNK_CHARS = 256 * 1024;

/** Values, and characters of strings, of an object or array serialized in one call however shallow (see {@link looksSmall}). */
const SMALL_VALUES = 1024;
const SMALL_CHARS = 64 * 1024;

/** Characters added between two chances to pause: well under a millisecond of work. */
const YIELD_CHARS = 64 * 1024;

/** Strings longer than this are escaped in pieces of this length (a 60 MB file's base64 is one string). */
const STRING_PIECE = 1024 * 1024;

/**
 * Nesting depth below which objects and arrays are walked here, one member at a time; deeper values
 * are serialized by `JSON.stringify` at once. A thread's items sit at depth 5 of `thread/resume`'s
 * result (result, thread, turns, turn, items, item): each item is one native call.
 */
const WALK_DEPTH = 5;

/**
 * A response result that may be large (a thread's whole history, a file's bytes): the line writer
 * serializes it in slices ({@link serializeSliced}) and holds the messages after it until it is
 * written. Anything else that serializes it (the audit log, a trace) gets `value` through `toJSON`.
 */
export class LargeResult {
  constructor(
    readonly value: unknown,
    private onWritten?: () => void,
  ) {}

  toJSON(): unknown {
    return this.value;
  }

  /** Called by the writer once the line is in the stream, or dropped: what the answer held may go (once). */
  written(): void {
    const onWritten = this.onWritten;
    this.onWritten = undefined;
    onWritten?.();
  }
}

/**
 * `JSON.stringify(value)` as UTF-8 chunks, sharing the event loop every {@link SERIALIZE_SLICE_MS}:
 * a result of tens of MB takes hundreds of ms to serialize and encode.
 */
export async function serializeSliced(value: unknown): Promise<Buffer[]> {
  const out = new ChunkCollector();
  await runSliced(valueSteps(resolved(value, ""), 0, out), new TimeSlice(SERIALIZE_SLICE_MS), new AbortController().signal);
  return out.finish();
}

/** Bytes encoded per step: a multiple of 3, so the pieces' base64 joins into the whole's. */
const BASE64_PIECE_BYTES = 3 * 256 * 1024;

/** The base64 of some bytes, encoded when serialized (see {@link base64Json}). */
class Base64Json {
  constructor(readonly bytes: Buffer) {}

  toJSON(): string {
    return this.bytes.toString("base64");
  }
}

/**
 * A string field holding the base64 of `bytes`, for a {@link LargeResult}: the writer encodes it
 * in pieces as it serializes (60 MB take ~60 ms to encode, and as much again to join). It is a
 * string only to JSON: code that reads the field itself must not be given it.
 */
export function base64Json(bytes: Buffer): string {
  return new Base64Json(bytes) as unknown as string;
}

/** Gathers JSON text and encodes it to UTF-8 in chunks of about {@link CHUNK_CHARS}. */
class ChunkCollector {
  private readonly chunks: Buffer[] = [];
  private text = "";
  private sincePause = 0;

  /** Whether {@link YIELD_CHARS} were added since the last time it said so: checking the clock after every item would cost more than the item. */
  pauseDue(): boolean {
    if (this.sincePause < YIELD_CHARS) return false;
    this.sincePause = 0;
    return true;
  }

  add(text: string): void {
    this.text += text;
    this.sincePause += text.length;
    if (this.text.length >= CHUNK_CHARS) this.flush();
  }

  finish(): Buffer[] {
    this.flush();
    return this.chunks;
  }

  private flush(): void {
    if (this.text) this.chunks.push(Buffer.from(this.text, "utf8"));
    this.text = "";
  }
}

/** What `JSON.stringify` serializes for `value` under `key`: after `toJSON`, or undefined where it would leave it out. */
function resolved(value: unknown, key: string): unknown {
  // Encoded in pieces by the steps, not at once by its toJSON.
  if (value instanceof Base64Json) return value;
  if (value !== null && typeof value === "object" && typeof (value as { toJSON?: unknown }).toJSON === "function") {
    value = (value as { toJSON: (key: string) => unknown }).toJSON(key);
  }
  return typeof value === "function" || typeof value === "symbol" ? undefined : value;
}

/**
 * The JSON of `value` (already {@link resolved}) when it is serialized in one call: anything but
 * a long string, a base64 field, or an object or array above {@link WALK_DEPTH}. (A `toJSON` that
 * returns an object with a `toJSON` of its own would differ from `JSON.stringify` here; results
 * are plain data.)
 */
function leafJson(value: unknown, depth: number): string | undefined {
  // Only reached at the top level and in arrays (objects leave such members out): both read null.
  if (value === undefined) return "null";
  if (typeof value === "string") return value.length > STRING_PIECE ? undefined : JSON.stringify(value);
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (value instanceof Base64Json) return undefined;
  return depth >= WALK_DEPTH || isBoxedPrimitive(value) || looksSmall(value) ? JSON.stringify(value) : undefined;
}

/**
 * Whether an object or array above {@link WALK_DEPTH} is small enough to serialize in one call: at
 * most {@link SMALL_VALUES} values and {@link SMALL_CHARS} characters of strings, counted until
 * either is passed. A turn of a few items is one call, not one per member: walking 16,000 turns
 * member by member cost more than serializing them.
 */
function looksSmall(value: object): boolean {
  const stack: unknown[] = [value];
  let values = 0;
  let chars = 0;
  while (stack.length > 0) {
    const current = stack.pop();
    if (++values + stack.length > SMALL_VALUES) return false;
    if (typeof current === "string") {
      chars += current.length;
      if (chars > SMALL_CHARS) return false;
    } else if (current instanceof Base64Json) {
      return false;
    } else if (Array.isArray(current)) {
      if (current.length > SMALL_VALUES) return false;
      stack.push(...current);
    } else if (current !== null && typeof current === "object") {
      for (const key in current) stack.push((current as Record<string, unknown>)[key]);
    }
  }
  return true;
}

/** Steps that add the JSON of `value` (already {@link resolved}) to `out`, pausing every {@link YIELD_CHARS} or so. */
function* valueSteps(value: unknown, depth: number, out: ChunkCollector): Steps<void> {
  const leaf = leafJson(value, depth);
  if (leaf !== undefined) {
    out.add(leaf);
  } else if (typeof value === "string") {
    yield* longStringSteps(value, out);
  } else if (value instanceof Base64Json) {
    yield* base64Steps(value.bytes, out);
  } else if (Array.isArray(value)) {
    out.add("[");
    for (let index = 0; index < value.length; index++) {
      if (index > 0) out.add(",");
      yield* memberSteps(resolved(value[index], String(index)), depth + 1, out);
    }
    out.add("]");
  } else {
    out.add("{");
    let first = true;
    for (const key of Object.keys(value as object)) {
      const member = resolved((value as Record<string, unknown>)[key], key);
      if (member === undefined) continue;
      out.add(`${first ? "" : ","}${JSON.stringify(key)}:`);
      first = false;
      yield* memberSteps(member, depth + 1, out);
    }
    out.add("}");
  }
}

/** A member of an object or array: a leaf is added here (a generator per item would cost more than its JSON), then a pause is due. */
function* memberSteps(value: unknown, depth: number, out: ChunkCollector): Steps<void> {
  const leaf = leafJson(value, depth);
  if (leaf === undefined) yield* valueSteps(value, depth, out);
  else out.add(leaf);
  if (out.pauseDue()) yield;
}

function isBoxedPrimitive(value: object): boolean {
  return value instanceof String || value instanceof Number || value instanceof Boolean;
}

/** The JSON string of `bytes`' base64, a piece at a time (base64 needs no escaping). */
function* base64Steps(bytes: Buffer, out: ChunkCollector): Steps<void> {
  out.add('"');
  for (let start = 0; start < bytes.length; start += BASE64_PIECE_BYTES) {
    out.add(bytes.toString("base64", start, Math.min(start + BASE64_PIECE_BYTES, bytes.length)));
    yield;
  }
  out.add('"');
}

/** A long string's JSON in pieces; a piece never ends between the two halves of a surrogate pair. */
function* longStringSteps(text: string, out: ChunkCollector): Steps<void> {
  out.add('"');
  for (let start = 0; start < text.length; ) {
    let end = Math.min(start + STRING_PIECE, text.length);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--;
    const piece = JSON.stringify(text.slice(start, end));
    out.add(piece.slice(1, -1));
    start = end;
    yield;
  }
  out.add('"');
}
