import { invalidCursor } from "./errors.js";

/** Opaque cursor for index-based paging: the offset of the next item, base64url-encoded. */
export function encodeOffsetCursor(offset: number): string {
  return Buffer.from(`o:${offset}`).toString("base64url");
}

/** Reads a cursor made by {@link encodeOffsetCursor}; -32600 for anything else. */
export function decodeOffsetCursor(cursor: string): number {
  const text = Buffer.from(cursor, "base64url").toString("utf8");
  const match = /^o:(\d+)$/.exec(text);
  if (!match) throw invalidCursor(cursor);
  return Number(match[1]);
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
