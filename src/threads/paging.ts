import type { ThreadItemEntry, ThreadItemsListParams, ThreadTurnsListParams } from "../protocol/threadMethods.js";
import type { Turn } from "../protocol/turn.js";
import { invalidRequest } from "../protocol/errors.js";
import { invalidCursor } from "./errors.js";
import { toWireTurn, type StoredTurn } from "./threadHistory.js";

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

/**
 * `thread/turns/list`'s page of a thread's turns: newest first unless `asc`, 25 by default, with
 * every item (`full`), none (`notLoaded`), or the first user message and last agent message (`summary`).
 */
export function turnsPage(turns: readonly StoredTurn[], params: ThreadTurnsListParams): { data: Turn[]; nextCursor: string | null } {
  const ordered = params.sortDirection === "asc" ? [...turns] : [...turns].reverse();
  const start = params.cursor ? decodeOffsetCursor(params.cursor) : 0;
  const limit = params.limit && params.limit > 0 ? params.limit : 25;
  const view = params.itemsView ?? "summary";
  const page = ordered.slice(start, start + limit).map((turn) => {
    const wire = toWireTurn(turn);
    if (view === "full") return wire;
    if (view === "notLoaded") return { ...wire, items: [], itemsView: "notLoaded" as const };
    const firstUser = turn.items.find((item) => item.type === "userMessage");
    const lastAgent = [...turn.items].reverse().find((item) => item.type === "agentMessage");
    return { ...wire, items: [firstUser, lastAgent].filter((item) => item !== undefined), itemsView: "summary" as const };
  });
  return { data: page, nextCursor: start + limit < ordered.length ? encodeOffsetCursor(start + limit) : null };
}

/** Default page size of `thread/items/list`. */
const DEFAULT_ITEMS_PAGE = 100;

/**
 * `thread/items/list`'s page of a thread's items (of one turn with `turnId`), oldest first unless
 * `desc`. A cursor is an exclusive position: the string cursors this returns, or an item anchor
 * `{type: "item", itemId}` (with a `turnId`); ascending pages go after it, descending before it.
 * `backwardsCursor` turns back from the page's first item.
 */
export function itemsPage(
  turns: readonly StoredTurn[],
  params: ThreadItemsListParams,
): { data: ThreadItemEntry[]; nextCursor: string | null; backwardsCursor: string | null } {
  const scope = params.turnId ? turns.filter((turn) => turn.id === params.turnId) : turns;
  if (params.turnId && scope.length === 0) throw invalidRequest(`turn ${params.turnId} is not a turn of thread ${params.threadId}`);
  const entries: ThreadItemEntry[] = scope.flatMap((turn) =>
    turn.items.map((item) => ({ turnId: turn.id, item, startedAtMs: item.startedAtMs ?? null, completedAtMs: item.completedAtMs ?? null })),
  );
  const ascending = params.sortDirection !== "desc";
  const anchor = itemAnchor(entries, params);
  const limit = params.limit && params.limit > 0 ? params.limit : DEFAULT_ITEMS_PAGE;
  // Positions in oldest-first order; a page walks from just past the anchor in its direction.
  const positions = ascending
    ? range(anchor === null ? 0 : anchor + 1, entries.length)
    : range(anchor === null ? entries.length - 1 : anchor - 1, -1);
  const page = positions.slice(0, limit);
  const more = positions.length > limit;
  return {
    data: page.map((at) => entries[at]!),
    nextCursor: more ? encodeOffsetCursor(page.at(-1)!) : null,
    backwardsCursor: page.length > 0 ? encodeOffsetCursor(page[0]!) : null,
  };
}

/** Where a page starts from: the position the cursor names, or null for the beginning. */
function itemAnchor(entries: readonly ThreadItemEntry[], params: ThreadItemsListParams): number | null {
  const cursor = params.cursor;
  if (cursor === null || cursor === undefined) return null;
  if (typeof cursor === "string") {
    const at = decodeOffsetCursor(cursor);
    if (at >= entries.length) throw invalidCursor(cursor);
    return at;
  }
  if (!params.turnId) throw invalidRequest("an item anchor cursor needs a turnId");
  const at = entries.findIndex((entry) => entry.item.id === cursor.itemId);
  if (at === -1) throw invalidRequest(`item ${cursor.itemId} is not an item of turn ${params.turnId}`);
  return at;
}

/** The integers from `from` towards `to` (exclusive), up or down. */
function range(from: number, to: number): number[] {
  const step = to >= from ? 1 : -1;
  const out: number[] = [];
  for (let at = from; at !== to && (step > 0 ? at < to : at > to); at += step) out.push(at);
  return out;
}
