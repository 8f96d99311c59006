// Next to repeated lines (blank lines, closing braces) several minimal edit scripts exist, and
// Myers implementations pick different ones; git then slides each run of changed lines over the
// repeated lines to one canonical place. Doing the same makes our diffs agree with git's on such
// changes: a run goes as far down as it can, merging with the runs it meets, except that it stops
// at the lowest place where it faces a run of changes on the other side (a replacement shows as
// one). git's further "indent heuristic" (moving a run to a nicer blank-line boundary) is not done.

/** One side of a diff: its lines, and which of them change (1), updated in place. */
export interface Side {
  readonly lines: readonly string[];
  readonly changed: Uint8Array;
}

/** Lines at each end of the sides that must stay unchanged (the context outside them is not known). */
export interface Fixed {
  readonly start: number;
  readonly end: number;
}

/** A run [start, end) of changed lines, between two unchanged lines (or an end); may be empty. */
interface Run {
  start: number;
  end: number;
}

/** Slides the runs of changed lines of both sides to where git puts them. */
export function slideChanges(before: Side, after: Side, fixed: Fixed): void {
  slideSide(before, after, fixed);
  slideSide(after, before, fixed);
}

/** Slides `side`'s runs, keeping `facing` on the run of `other` between the same unchanged lines. */
function slideSide(side: Side, other: Side, fixed: Fixed): void {
  const low = fixed.start;
  const high = side.lines.length - fixed.end;
  const run = firstRun(side);
  const facing = firstRun(other);
  do {
    if (run.start === run.end) continue;
    let size: number;
    let highest: number;
    let aligned: number | null;
    // Up then down as far as it goes, again while it grows by merging.
    do {
      size = run.end - run.start;
      while (slideUp(side, run, low)) previousRun(other, facing);
      highest = run.end;
      aligned = facing.start < facing.end ? run.end : null;
      while (slideDown(side, run, high)) {
        nextRun(other, facing);
        if (facing.start < facing.end) aligned = run.end;
      }
    } while (size !== run.end - run.start);
    if (run.end !== highest && aligned !== null) {
      while (facing.start === facing.end && slideUp(side, run, low)) previousRun(other, facing);
    }
  } while (nextRun(side, run) && nextRun(other, facing));
}

function firstRun(side: Side): Run {
  let end = 0;
  while (side.changed[end]) end++;
  return { start: 0, end };
}

/** Moves `run` to the next run (after the unchanged line that ends it); false at the end. */
function nextRun(side: Side, run: Run): boolean {
  if (run.end >= side.lines.length) return false;
  run.start = run.end + 1;
  run.end = run.start;
  while (side.changed[run.end]) run.end++;
  return true;
}

/** Moves `run` to the previous run (before the unchanged line that starts it). */
function previousRun(side: Side, run: Run): void {
  run.end = run.start - 1;
  run.start = run.end;
  while (run.start > 0 && side.changed[run.start - 1]) run.start--;
}

/** Shifts `run` down one line when its first line equals the line after it, merging with the run it meets. */
function slideDown(side: Side, run: Run, high: number): boolean {
  if (run.end >= high || side.lines[run.start] !== side.lines[run.end]) return false;
  side.changed[run.start++] = 0;
  side.changed[run.end++] = 1;
  while (side.changed[run.end]) run.end++;
  return true;
}

/** Shifts `run` up one line when its last line equals the line before it, merging with the run it meets. */
function slideUp(side: Side, run: Run, low: number): boolean {
  if (run.start <= low || side.lines[run.start - 1] !== side.lines[run.end - 1]) return false;
  side.changed[--run.end] = 0;
  side.changed[--run.start] = 1;
  while (run.start > 0 && side.changed[run.start - 1]) run.start--;
  return true;
}
