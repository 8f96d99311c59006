import { changedRegion, type Region } from "./changedRegion.js";
import { editScript } from "./editScript.js";
import { slideChanges } from "./slideChanges.js";

const CONTEXT = 3;
// Unchanged lines kept around the changed ones: the hunks' context, and room to slide changes
// over repeated lines as git does (a run of more identical lines than this slides less far).
const MARGIN = 100;
const NO_NEWLINE = "\\ No newline at end of file\n";

/** Lines [from, to) removed from the region's `before` and lines [fromAfter, toAfter) added from its `after`. */
interface Block {
  readonly from: number;
  readonly to: number;
  readonly fromAfter: number;
  readonly toAfter: number;
}

/**
 * Git-style unified diff hunks (`@@ -a,b +c,d @@`, 3 lines of context, `\ No newline at end of
 * file` markers) from `before` to `after`; "" when equal. Never blocks the event loop for long.
 */
export async function unifiedDiff(before: string, after: string): Promise<string> {
  if (before === after) return "";
  const region = changedRegion(before, after, MARGIN);
  const { head, tail } = region;
  const middle = await editScript(region.before.slice(head, region.before.length - tail), region.after.slice(head, region.after.length - tail));
  const removed = new Uint8Array(region.before.length);
  const added = new Uint8Array(region.after.length);
  removed.set(middle.removed, head);
  added.set(middle.added, head);
  // A change slid to the edge of the region would lose context from lines outside it.
  const fixed = { start: region.offset === 0 ? 0 : CONTEXT, end: region.atEnd ? 0 : CONTEXT };
  slideChanges({ lines: region.before, changed: removed }, { lines: region.after, changed: added }, fixed);
  const blocks = changeBlocks(removed, added);
  let diff = "";
  for (let first = 0; first < blocks.length; ) {
    // Blocks close enough to share their context make one hunk, as in git.
    let last = first;
    while (last + 1 < blocks.length && blocks[last + 1]!.from - blocks[last]!.to <= 2 * CONTEXT) last++;
    diff += hunk(region, blocks.slice(first, last + 1));
    first = last + 1;
  }
  return diff;
}

/** The runs of removed and added lines between unchanged ones. */
function changeBlocks(removed: Uint8Array, added: Uint8Array): Block[] {
  const blocks: Block[] = [];
  for (let at = 0, atAfter = 0; at < removed.length || atAfter < added.length; ) {
    if (!removed[at] && !added[atAfter]) {
      at++;
      atAfter++;
      continue;
    }
    const from = at;
    const fromAfter = atAfter;
    while (removed[at]) at++;
    while (added[atAfter]) atAfter++;
    blocks.push({ from, to: at, fromAfter, toAfter: atAfter });
  }
  return blocks;
}

/** One hunk over `blocks`, with its context; line numbers count from the start of the file. */
function hunk(region: Region, blocks: readonly Block[]): string {
  const first = blocks[0]!;
  const last = blocks.at(-1)!;
  const start = Math.max(0, first.from - CONTEXT);
  const end = Math.min(region.before.length, last.to + CONTEXT);
  const startAfter = first.fromAfter - (first.from - start);
  const endAfter = last.toAfter + (end - last.to);
  let text = `@@ -${range(region.offset + start, end - start)} +${range(region.offset + startAfter, endAfter - startAfter)} @@\n`;
  let at = start;
  for (const block of blocks) {
    text += lines(" ", region.before, at, block.from) + lines("-", region.before, block.from, block.to) + lines("+", region.after, block.fromAfter, block.toAfter);
    at = block.to;
  }
  return text + lines(" ", region.before, at, end);
}

/** A hunk range: `start,count` from 1, `start` alone for one line, the line before for none. */
function range(start: number, count: number): string {
  if (count === 0) return `${start},0`;
  return count === 1 ? `${start + 1}` : `${start + 1},${count}`;
}

function lines(mark: string, source: readonly string[], from: number, to: number): string {
  let text = "";
  for (let k = from; k < to; k++) {
    const line = source[k]!;
    text += line.endsWith("\n") ? mark + line : `${mark}${line}\n${NO_NEWLINE}`;
  }
  return text;
}
