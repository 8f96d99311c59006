import type { CandidateIndex } from "./fuzzyCandidate.js";
import { firstAtOrAfter } from "./fuzzyGreedy.js";
import { alignmentScore, BONUS_CONSECUTIVE, FIRST_CHAR_MULTIPLIER, GAP_EXTENSION, GAP_START, SCORE_MATCH, bonusAt } from "./fuzzyScore.js";

const NONE = Number.NEGATIVE_INFINITY;

/** Scratch for the cells of one alignment, grown as needed: alignments run one at a time, without yielding. */
let scores = new Float64Array(1024);
let runs = new Float64Array(1024);
let froms = new Int32Array(1024);
/** Scratch for the rows of one alignment: see {@link optimalAlignment}. */
let rowFirst = new Int32Array(64);
let rowEnd = new Int32Array(64);
let cellOf = new Int32Array(65);

/**
 * The best-scoring alignment of `atom` (letters) at positions `lo..hi` of `candidate`, by dynamic
 * programming over (atom character, position where that character occurs): a row holds only the
 * positions where its letter is, so the cost is the occurrences in `lo..hi` of the atom's letters,
 * never more than atom.length × (hi - lo + 1), which the caller must keep small. It finds the same
 * alignment as the full matrix would, ties included: the adjacent step over a gap, the earliest
 * gap start, the earliest end. Returns its score and leaves its positions in `indices` (the first
 * `atom.length`); the atom must be a subsequence there.
 */
export function optimalAlignment(atom: Int32Array, candidate: CandidateIndex, lo: number, hi: number, indices: Int32Array): number {
  const { positions, codes } = candidate;
  // Row i is positions[rowFirst[i] .. rowEnd[i]): where atom[i] occurs in lo..hi; its cells start at cellOf[i].
  if (rowFirst.length < atom.length) {
    rowFirst = new Int32Array(atom.length);
    rowEnd = new Int32Array(atom.length);
    cellOf = new Int32Array(atom.length + 1);
  }
  for (let i = 0; i < atom.length; i++) {
    const letter = atom[i]!;
    const end = candidate.end(letter);
    rowFirst[i] = firstAtOrAfter(positions, candidate.first(letter), end, lo);
    rowEnd[i] = firstAtOrAfter(positions, rowFirst[i]!, end, hi + 1);
    cellOf[i + 1] = cellOf[i]! + rowEnd[i]! - rowFirst[i]!;
  }
  if (cellOf[atom.length] === atom.length) {
    // One position per character: the only alignment there is (the common case of a short atom in a short span).
    for (let i = 0; i < atom.length; i++) indices[i] = positions[rowFirst[i]!]!;
    return alignmentScore(codes, indices, atom.length);
  }
  reserve(cellOf[atom.length]!);
  for (let at = rowFirst[0]!, cell = 0; at < rowEnd[0]!; at++, cell++) {
    const bonus = bonusAt(codes, positions[at]!);
    scores[cell] = SCORE_MATCH + bonus * FIRST_CHAR_MULTIPLIER;
    runs[cell] = bonus;
    froms[cell] = -1;
  }
  for (let i = 1; i < atom.length; i++) {
    const aboveFirst = rowFirst[i - 1]!;
    const aboveCells = rowEnd[i - 1]! - aboveFirst;
    const aboveCell = cellOf[i - 1]!;
    // The best cell above that a gap can lead from, as score + position × GAP_EXTENSION, so that
    // charging the gap later is one subtraction; the earliest wins a tie, as it opened the gap first.
    let gapKey = NONE;
    let gapFrom = -1;
    let scanned = 0;
    let adjacentScan = 0;
    for (let at = rowFirst[i]!, cell = cellOf[i]!; at < rowEnd[i]!; at++, cell++) {
      const j = positions[at]!;
      for (; scanned < aboveCells && positions[aboveFirst + scanned]! <= j - 2; scanned++) {
        const key = scores[aboveCell + scanned]! + positions[aboveFirst + scanned]! * GAP_EXTENSION;
        if (key > gapKey) {
          gapKey = key;
          gapFrom = aboveCell + scanned;
        }
      }
      while (adjacentScan < aboveCells && positions[aboveFirst + adjacentScan]! < j - 1) adjacentScan++;
      const bonus = bonusAt(codes, j);
      const gapped = gapKey - GAP_START - (j - 2) * GAP_EXTENSION + SCORE_MATCH + bonus;
      let adjacent = NONE;
      let run = 0;
      if (adjacentScan < aboveCells && positions[aboveFirst + adjacentScan]! === j - 1) {
        run = Math.max(runs[aboveCell + adjacentScan]!, bonus);
        adjacent = scores[aboveCell + adjacentScan]! + SCORE_MATCH + Math.max(run, BONUS_CONSECUTIVE);
      }
      if (adjacent === NONE && gapped === NONE) {
        scores[cell] = NONE;
      } else if (adjacent >= gapped) {
        scores[cell] = adjacent;
        runs[cell] = run;
        froms[cell] = aboveCell + adjacentScan;
      } else {
        scores[cell] = gapped;
        runs[cell] = bonus;
        froms[cell] = gapFrom;
      }
    }
  }
  const last = atom.length - 1;
  let end = -1;
  for (let cell = cellOf[last]!; cell < cellOf[last + 1]!; cell++) if (scores[cell]! > NONE && (end === -1 || scores[cell]! > scores[end]!)) end = cell;
  for (let i = last, cell = end; i >= 0; cell = froms[cell]!, i--) indices[i] = positions[rowFirst[i]! + cell - cellOf[i]!]!;
  return scores[end]!;
}

function reserve(cells: number): void {
  if (scores.length >= cells) return;
  const size = Math.max(cells, scores.length * 2);
  [scores, runs, froms] = [new Float64Array(size), new Float64Array(size), new Int32Array(size)];
}
