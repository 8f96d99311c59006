import { setImmediate as nextTurn } from "node:timers/promises";
import { diffArrays, type ArrayChange } from "../../vendor/diff.js";

// jsdiff's Myers diff costs O((N+M)·D) for D changed lines: nothing for the usual patch, seconds
// for thousands of scattered changes. So a diff first runs at once within a small time budget,
// which covers the usual patch; past it, it runs again in jsdiff's callback mode, one edit length
// per macrotask (a setTimeout, ~1 ms apart in Node), so no step holds the event loop for long.
const SYNC_BUDGET_MS = 1;
// Past this many removed plus added lines jsdiff gives up and the lines are shown removed and
// added whole: in callback mode each edit length costs ~1 ms, so this bounds a diff to ~2 s.
const MAX_EDIT_LENGTH = 2000;
// Lines numbered between two turns of the event loop (hashing costs ~0.1 µs a line).
const LINES_PER_TURN = 4096;

/** Which lines a diff removes from `before` and adds from `after`: 1 for a changed line. */
export interface LineChanges {
  readonly removed: Uint8Array;
  readonly added: Uint8Array;
}

/**
 * A minimal edit script from `before` to `after` (Myers, from jsdiff), computed without blocking
 * the event loop for long; past MAX_EDIT_LENGTH, every line replaced.
 */
export async function editScript(before: readonly string[], after: readonly string[]): Promise<LineChanges> {
  // Lines become numbers (equal lines, equal numbers): each line is hashed once, and Myers
  // compares numbers instead of strings.
  const ids = new Map<string, number>();
  const beforeIds = await numbered(before, ids);
  const afterIds = await numbered(after, ids);
  // A line found on one side only is changed in every edit script: leaving such lines out (as git
  // does) leaves Myers less to do, and nothing at all for a file rewritten whole.
  const keptBefore = indexesOf(beforeIds, afterIds, ids.size);
  const keptAfter = indexesOf(afterIds, beforeIds, ids.size);
  const changes = await myers(
    keptBefore.map((k) => beforeIds[k]!),
    keptAfter.map((k) => afterIds[k]!),
  );
  const removed = new Uint8Array(before.length).fill(1);
  const added = new Uint8Array(after.length).fill(1);
  let at = 0;
  let atAfter = 0;
  for (const change of changes ?? []) {
    if (change.removed) at += change.count;
    else if (change.added) atAfter += change.count;
    else {
      for (let k = 0; k < change.count; k++) {
        removed[keptBefore[at++]!] = 0;
        added[keptAfter[atAfter++]!] = 0;
      }
    }
  }
  return { removed, added };
}

/** The number of each line in `ids`, numbering new lines; a turn of the event loop every LINES_PER_TURN lines. */
async function numbered(lines: readonly string[], ids: Map<string, number>): Promise<number[]> {
  const numbers = new Array<number>(lines.length);
  for (let k = 0; k < lines.length; k++) {
    if (k > 0 && k % LINES_PER_TURN === 0) await nextTurn();
    let id = ids.get(lines[k]!);
    if (id === undefined) ids.set(lines[k]!, (id = ids.size));
    numbers[k] = id;
  }
  return numbers;
}

/** The indexes of the lines of `lines` that `others` holds too (ids below `count`). */
function indexesOf(lines: readonly number[], others: readonly number[], count: number): number[] {
  const present = new Uint8Array(count);
  for (const id of others) present[id] = 1;
  const kept: number[] = [];
  lines.forEach((id, k) => present[id] && kept.push(k));
  return kept;
}

/** jsdiff's changes: at once within the budget, else in its callback mode; undefined past the limit. */
async function myers(before: number[], after: number[]): Promise<ArrayChange<number>[] | undefined> {
  const limit = { maxEditLength: MAX_EDIT_LENGTH };
  return (
    diffArrays(before, after, { ...limit, timeout: SYNC_BUDGET_MS }) ??
    new Promise((resolve) => diffArrays(before, after, { ...limit, callback: resolve }))
  );
}
