// Like git (which trims common lines before its diff), a diff here only splits and compares the
// lines between the first and the last that differ: a one-line change in a large file costs a
// comparison of the two texts, done natively, instead of a diff over every line.

// Characters compared at once while looking for the first difference; halved around a mismatch.
const BLOCK = 1 << 16;

/** Where two texts differ: whole lines, with up to `margin` unchanged lines on each side. */
export interface Region {
  /** Lines before the region: the same in both texts. */
  readonly offset: number;
  /** The region's lines in each text, each with its "\n" (CR stays part of the line, as in git). */
  readonly before: string[];
  readonly after: string[];
  /** Unchanged lines at the region's start and at its end (the margins). */
  readonly head: number;
  readonly tail: number;
  /** Whether the region runs to the end of the texts. */
  readonly atEnd: boolean;
}

/** The changed lines of `before` and `after` (which differ), with `margin` lines around them. */
export function changedRegion(before: string, after: string, margin: number): Region {
  const prefix = matchingLength(Math.min(before.length, after.length), (from, to) => before.slice(from, to) === after.slice(from, to));
  const firstChanged = lineStart(before, prefix);
  const suffix = matchingLength(
    Math.min(before.length, after.length) - firstChanged,
    (from, to) => before.slice(before.length - to, before.length - from) === after.slice(after.length - to, after.length - from),
  );
  const commonEnd = commonLinesFrom(before, after, before.length - suffix, firstChanged);
  const start = linesBack(before, firstChanged, margin);
  const beforeEnd = linesForward(before, commonEnd, margin);
  const afterEnd = after.length - (before.length - beforeEnd);
  return {
    offset: countLines(before, 0, start),
    before: splitLines(before.slice(start, beforeEnd)),
    after: splitLines(after.slice(start, afterEnd)),
    head: countLines(before, start, firstChanged),
    tail: splitLines(before.slice(commonEnd, beforeEnd)).length,
    atEnd: beforeEnd === before.length,
  };
}

/** The lines of `text`, each with its "\n"; a last line without one stays without. */
function splitLines(text: string): string[] {
  // Slices of the text, not concatenations: those would be copied again to be hashed and compared.
  const lines: string[] = [];
  for (let start = 0; start < text.length; ) {
    const newline = text.indexOf("\n", start);
    const end = newline === -1 ? text.length : newline + 1;
    lines.push(text.slice(start, end));
    start = end;
  }
  return lines;
}

/** The largest length ≤ max over which `equal(0, length)` holds, found a block at a time. */
function matchingLength(max: number, equal: (from: number, to: number) => boolean): number {
  let at = 0;
  let block = BLOCK;
  while (at < max) {
    const to = Math.min(at + block, max);
    if (equal(at, to)) at = to;
    else if (to - at === 1) break;
    else block = (to - at) >> 1;
  }
  return at;
}

/**
 * Where the common trailing lines start in `before` (its length when there are none), given
 * `from`, where its common trailing characters start. Those lines must start a line in both texts:
 * past the first "\n" of the common characters, or at `from` itself when both have a line start
 * there (the preceding characters differ, so both must be a "\n" or the first changed line).
 */
function commonLinesFrom(before: string, after: string, from: number, firstChanged: number): number {
  const afterFrom = after.length - (before.length - from);
  const startsLine = (text: string, at: number) => at === firstChanged || text[at - 1] === "\n";
  if (startsLine(before, from) && startsLine(after, afterFrom)) return from;
  const newline = before.indexOf("\n", from);
  return newline === -1 ? before.length : newline + 1;
}

/** The start of the line holding `at` (`at` itself after a "\n"). */
function lineStart(text: string, at: number): number {
  return at === 0 ? 0 : text.lastIndexOf("\n", at - 1) + 1;
}

/** The start of the line `count` lines before the one starting at `at` (or of the first line). */
function linesBack(text: string, at: number, count: number): number {
  for (let n = 0; n < count && at > 0; n++) at = lineStart(text, at - 1);
  return at;
}

/** The end of the line `count` lines after the one ending at `at` (or of the text). */
function linesForward(text: string, at: number, count: number): number {
  for (let n = 0; n < count && at < text.length; n++) {
    const newline = text.indexOf("\n", at);
    at = newline === -1 ? text.length : newline + 1;
  }
  return at;
}

/** How many "\n" there are from `start` to `end`. */
function countLines(text: string, start: number, end: number): number {
  let count = 0;
  for (let at = text.indexOf("\n", start); at !== -1 && at < end; at = text.indexOf("\n", at + 1)) count++;
  return count;
}
