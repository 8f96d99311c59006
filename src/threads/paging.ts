import { invalidCursor } from "./errors.js";

/** Opaque cursor for index-based paging: the offset of the next item, base64url-encoded. */
function encodeOffsetCursor(offset: number): string {
  return Buffer.from(`o:${offset}`).toString("base64url");
}

/** Reads a cursor made by {@link encodeOffsetCursor}; -32600 for anything else. */
function decodeOffsetCursor(cursor: string): number {
  const text = Buffer.from(cursor, "base64url").toString("utf8");
  const match = /^o:(\d+)$/.exec(text);
  if (!match) throw invalidCursor(cursor);
  return Number(match[1]);
}

/** A page of `items` from an offset cursor (the start when none); `limit` 0 or absent: the rest. */
export function offsetPage<T>(items: readonly T[], cursor: string | null | undefined, limit: number | null | undefined): { data: T[]; nextCursor: string | null } {
  const start = cursor ? decodeOffsetCursor(cursor) : 0;
  const size = limit && limit > 0 ? limit : items.length;
  return { data: items.slice(start, start + size), nextCursor: start + size < items.length ? encodeOffsetCursor(start + size) : null };
}

/** Opaque cursor that resumes after a sort position: the last item's sort value and id. */
export function encodeKeyCursor(value: number, id: string): string {
  return Buffer.from(JSON.stringify([value, id])).toString("base64url");
}

/** Reads a cursor made by {@link encodeKeyCursor}; -32600 for anything else. */
export function decodeKeyCursor(cursor: string): { value: number; id: string } {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (Array.isArray(parsed) && typeof parsed[0] === "number" && typeof parsed[1] === "string") {
      return { value: parsed[0], id: parsed[1] };
    }
  } catch {
    // fall through to the error
  }
  throw invalidCursor(cursor);
}
