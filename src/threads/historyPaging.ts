/**
 * `thread/turns/list` and `thread/items/list` paging as Codex 0.169 does it: keyset cursors naming
 * a row by its ordinal (its position in the whole thread, oldest first), in Codex's own cursor
 * format, so clients that keep or inspect cursors (codex-acp after session/load) page the same way.
 */
import { invalidRequest } from "../protocol/errors.js";
import type { ThreadItemEntry, ThreadItemsListParams, ThreadTurnsListParams } from "../protocol/threadMethods.js";
import type { Turn } from "../protocol/turn.js";
import { invalidCursor } from "./errors.js";
import { toWireTurn, type StoredTurn } from "./threadHistory.js";

/** A page of history: `backwardsCursor` names its first row, `nextCursor` its last while more rows follow. */
export interface HistoryPage<T> {
  data: T[];
  nextCursor: string | null;
  backwardsCursor: string | null;
}

type Scope = "turns" | "itemsByCreatedAtOrdinal";
type Direction = "asc" | "desc";

/** Where a page starts: the row with this ordinal, and whether that row is on the page. */
interface Anchor {
  readonly ordinal: number;
  readonly includeAnchor: boolean;
}

interface Row<T> {
  readonly ordinal: number;
  readonly value: T;
}

const DEFAULT_PAGE_SIZE = 25;
const MAX_PAGE_SIZE = 100;

/** Codex's cursor text, keys in Codex's order (clients compare and log them verbatim). */
function historyCursor(threadId: string, ordinal: number, includeAnchor: boolean, scope: Scope): string {
  return JSON.stringify({ requestedThreadId: threadId, rolloutOrdinal: ordinal, includeAnchor, scope: { kind: scope } });
}

/** The newest turn and item of a thread, each as a cursor that includes it (null when there is none). */
export interface HistoryHeads {
  turnsBackwardsCursor: string | null;
  itemsBackwardsCursor: string | null;
}

/** Where paging a thread's history back from its newest end starts, as thread/resume and thread/revert return it. */
export function historyHeads(threadId: string, turns: readonly StoredTurn[]): HistoryHeads {
  const items = turns.reduce((count, turn) => count + turn.items.length, 0);
  return {
    turnsBackwardsCursor: turns.length > 0 ? historyCursor(threadId, turns.length - 1, true, "turns") : null,
    itemsBackwardsCursor: items > 0 ? historyCursor(threadId, items - 1, true, "itemsByCreatedAtOrdinal") : null,
  };
}

/**
 * `thread/turns/list`'s page of a thread's turns: newest first unless `asc`, with every item
 * (`full`), none (`notLoaded`), or the first user message and last agent message (`summary`, the default).
 */
export function turnsPage(turns: readonly StoredTurn[], params: ThreadTurnsListParams): HistoryPage<Turn> {
  const rows = turns.map((turn, ordinal) => ({ ordinal, value: turn }));
  const anchor = params.cursor ? readCursor(params.cursor, params.threadId, "turns", turns.length) : null;
  const page = pageOf(rows, anchor, params.sortDirection ?? "desc", params.limit, (ordinal, include) => historyCursor(params.threadId, ordinal, include, "turns"));
  const view = params.itemsView ?? "summary";
  return { ...page, data: page.data.map((turn) => turnView(turn, view)) };
}

/**
 * `thread/items/list`'s page of a thread's items (of one turn with `turnId`; an unknown turn has
 * none), oldest first unless `desc`. Besides the string cursors, `cursor` may be an item anchor
 * `{type: "item", itemId}` within `turnId`, which the page starts just after (or before).
 */
export function itemsPage(turns: readonly StoredTurn[], params: ThreadItemsListParams): HistoryPage<ThreadItemEntry> {
  // Numbered over the whole thread before filtering, so a cursor means the same row in either scope.
  const all = turns.flatMap((turn) => turn.items.map((item) => ({ turnId: turn.id, item })));
  const rows = all.map((entry, ordinal) => ({ ordinal, value: entry })).filter((row) => !params.turnId || row.value.turnId === params.turnId);
  const cursor = params.cursor;
  let anchor: Anchor | null = null;
  if (typeof cursor === "string") {
    anchor = readCursor(cursor, params.threadId, "itemsByCreatedAtOrdinal", all.length);
  } else if (cursor) {
    if (!params.turnId) throw invalidRequest("turnId is required when cursor is an item anchor");
    const row = rows.find((candidate) => candidate.value.item.id === cursor.itemId);
    if (!row) throw invalidRequest("cursor.itemId does not identify an item in the requested history scope");
    anchor = { ordinal: row.ordinal, includeAnchor: false };
  }
  const page = pageOf(rows, anchor, params.sortDirection ?? "asc", params.limit, (ordinal, include) =>
    historyCursor(params.threadId, ordinal, include, "itemsByCreatedAtOrdinal"),
  );
  return {
    ...page,
    data: page.data.map(({ turnId, item }) => ({ turnId, item, startedAtMs: item.startedAtMs ?? null, completedAtMs: item.completedAtMs ?? null })),
  };
}

/** Reads a cursor of this thread and scope naming one of its `count` rows; -32600 `invalid cursor` for anything else. */
function readCursor(cursor: string, threadId: string, scope: Scope, count: number): Anchor {
  let parsed: unknown;
  try {
    parsed = JSON.parse(cursor);
  } catch {
    throw invalidCursor(cursor);
  }
  if (typeof parsed !== "object" || parsed === null) throw invalidCursor(cursor);
  const { requestedThreadId, rolloutOrdinal, includeAnchor, scope: named } = parsed as Record<string, unknown>;
  const valid =
    requestedThreadId === threadId &&
    typeof includeAnchor === "boolean" &&
    typeof rolloutOrdinal === "number" &&
    Number.isSafeInteger(rolloutOrdinal) &&
    rolloutOrdinal >= 0 &&
    rolloutOrdinal < count &&
    typeof named === "object" &&
    named !== null &&
    (named as Record<string, unknown>).kind === scope;
  if (!valid) throw invalidCursor(cursor);
  return { ordinal: rolloutOrdinal, includeAnchor };
}

/** One page of `rows` (oldest first) in `direction` from `anchor` (the start when null); limit 25 by default, 1 to 100. */
function pageOf<T>(
  rows: readonly Row<T>[],
  anchor: Anchor | null,
  direction: Direction,
  limit: number | null | undefined,
  cursorAt: (ordinal: number, includeAnchor: boolean) => string,
): HistoryPage<T> {
  const size = Math.min(MAX_PAGE_SIZE, Math.max(1, limit ?? DEFAULT_PAGE_SIZE));
  const ordered = direction === "asc" ? rows : [...rows].reverse();
  const following = anchor === null ? ordered : ordered.filter((row) => follows(row.ordinal, anchor, direction));
  const page = following.slice(0, size);
  const first = page[0];
  const last = page.at(-1);
  return {
    data: page.map((row) => row.value),
    nextCursor: last && following.length > size ? cursorAt(last.ordinal, false) : null,
    backwardsCursor: first ? cursorAt(first.ordinal, true) : null,
  };
}

/** Whether a row with this ordinal is on the anchor's side in `direction` (or is the anchor, when included). */
function follows(ordinal: number, anchor: Anchor, direction: Direction): boolean {
  if (ordinal === anchor.ordinal) return anchor.includeAnchor;
  return direction === "asc" ? ordinal > anchor.ordinal : ordinal < anchor.ordinal;
}

/** A stored turn for the wire with the items `view` asks for. */
function turnView(turn: StoredTurn, view: NonNullable<ThreadTurnsListParams["itemsView"]>): Turn {
  const wire = toWireTurn(turn);
  if (view === "full") return wire;
  if (view === "notLoaded") return { ...wire, items: [], itemsView: "notLoaded" };
  const firstUser = turn.items.find((item) => item.type === "userMessage");
  const lastAgent = turn.items.findLast((item) => item.type === "agentMessage");
  return { ...wire, items: [firstUser, lastAgent].filter((item) => item !== undefined), itemsView: "summary" };
}
