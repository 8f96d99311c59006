import { diffArrays, type ArrayChange } from "diff";

// jsdiff's Myers diff costs O((N+M)·D) for D changed lines: nothing for the usual patch, seconds
// for thousands of scattered changes. So a diff first runs at once within a small time budget,
// which covers the usual patch; past it, it runs again in jsdiff's callback mode, one edit length
// per macrotask (a setTimeout, ~1 ms apart in Node), so no step holds the event loop for long.
const SYNC_BUDGET_MS = 2;
// Past this many removed plus added lines jsdiff gives up and the changed lines are shown removed
// and added whole: in callback mode each edit length costs ~1 ms, so this bounds a diff to ~2 s.
const MAX_EDIT_LENGTH = 2000;

/** Which lines a diff removes from `before` and adds from `after`: 1 for a changed line. */
export interface LineChanges {
  readonly removed: Uint8Array;
  readonly added: Uint8Array;
}

/**
 * A minimal edit script from `before` to `after` (Myers, from jsdiff), computed without blocking
 * the event loop; past MAX_EDIT_LENGTH, every line replaced.
 */
export async function editScript(before: string[], after: string[]): Promise<LineChanges> {
  const removed = new Uint8Array(before.length);
  const added = new Uint8Array(after.length);
  // At least the difference in length must be added or removed: no need to try past the limit.
  const changes = Math.abs(before.length - after.length) > MAX_EDIT_LENGTH ? undefined : await myers(before, after);
  if (!changes) return { removed: removed.fill(1), added: added.fill(1) };
  let at = 0;
  let atAfter = 0;
  for (const change of changes) {
    if (change.removed) removed.fill(1, at, (at += change.count));
    else if (change.added) added.fill(1, atAfter, (atAfter += change.count));
    else {
      at += change.count;
      atAfter += change.count;
    }
  }
  return { removed, added };
}

/** jsdiff's line changes: at once within the budget, else in its callback mode; undefined past the limit. */
async function myers(before: string[], after: string[]): Promise<ArrayChange<string>[] | undefined> {
  const limit = { maxEditLength: MAX_EDIT_LENGTH };
  return (
    diffArrays(before, after, { ...limit, timeout: SYNC_BUDGET_MS }) ??
    new Promise((resolve) => diffArrays(before, after, { ...limit, callback: resolve }))
  );
}
