import type { CandidateIndex } from "./fuzzyCandidate.js";

/**
 * Greedy subsequence alignments over a candidate's index of where each query letter occurs:
 * each costs O(atom length × log(candidate length)), however long the candidate, so filtering
 * and fallback scoring stay linear in the path.
 */

/**
 * Where `atom` ends when matched at the first occurrence of each letter, or -1 when it does not
 * fit; where it starts is left in `start.at`. Allocates nothing: every path of a search runs it.
 */
export function forwardEnd(atom: Int32Array, candidate: CandidateIndex, start: { at: number }): number {
  const { positions } = candidate;
  let next = 0;
  for (let i = 0; i < atom.length; i++) {
    const letter = atom[i]!;
    const end = candidate.end(letter);
    const at = firstAtOrAfter(positions, candidate.first(letter), end, next);
    if (at === end) return -1;
    if (i === 0) start.at = positions[at]!;
    next = positions[at]! + 1;
  }
  return next - 1;
}

/**
 * `atom` matched at the last occurrence of each letter at or before `to`: the tightest alignment
 * ending by `to`, left in `indices` (its first `atom.length`). There must be one.
 */
export function backwardAlignment(atom: Int32Array, candidate: CandidateIndex, to: number, indices: Int32Array): void {
  const { positions } = candidate;
  let previous = to;
  for (let i = atom.length - 1; i >= 0; i--) {
    const letter = atom[i]!;
    const at = firstAtOrAfter(positions, candidate.first(letter), candidate.end(letter), previous + 1) - 1;
    indices[i] = positions[at]!;
    previous = positions[at]! - 1;
  }
}

/**
 * How many alignments `atom` has in the candidate, counted up to 2 (for several), from its hits in
 * path order, so before {@link CandidateIndex.sortByLetter}. The leftmost alignment is left in
 * `indices`; every alignment lies between it and the rightmost, letter by letter, so when the two
 * are the same it is the only one. O(hits); allocates nothing.
 */
export function alignmentCount(atom: Int32Array, candidate: CandidateIndex, indices: Int32Array): 0 | 1 | 2 {
  const { hitAt, hitLetter, hits } = candidate;
  const last = atom.length - 1;
  let i = 0;
  for (let hit = 0; hit < hits && i <= last; hit++) if (hitLetter[hit] === atom[i]) indices[i++] = hitAt[hit]!;
  if (i <= last) return 0;
  // The rightmost alignment, from the last occurrence of the last letter backwards, compared as it is found.
  i = last;
  for (let hit = hits - 1; i >= 0; hit--) {
    if (hitLetter[hit] !== atom[i]) continue;
    if (hitAt[hit] !== indices[i]) return 2;
    i--;
  }
  return 1;
}

/** Index of the first element of ascending `positions[low..high)` that is at least `value` (`high` if none). */
export function firstAtOrAfter(positions: Int32Array, low: number, high: number, value: number): number {
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (positions[middle]! < value) low = middle + 1;
    else high = middle;
  }
  return low;
}
