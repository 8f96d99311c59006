import { BONUS_CONSECUTIVE, FIRST_CHAR_MULTIPLIER, GAP_EXTENSION, GAP_START, SCORE_MATCH, type Bonuses, type FuzzyMatch } from "./fuzzyScore.js";

/**
 * The best-scoring alignment of `atom` at positions `lo..hi` of `chars` (case-folded as the query;
 * `bonuses` of the same candidate), by dynamic programming over (atom character, position): it
 * costs atom.length × (hi - lo + 1) cells, which the caller must keep small. Null when the atom is
 * not a subsequence there.
 */
export function optimalAlignment(atom: readonly string[], chars: readonly string[], bonuses: Bonuses, lo: number, hi: number): FuzzyMatch | null {
  const width = hi - lo + 1;
  const NONE = Number.NEGATIVE_INFINITY;
  // Row i, column k is atom[i] matched at position lo + k: the best score of atom[0..i], the
  // column atom[i-1] went to, and the bonus the run of consecutive matches ending there started with.
  const best = new Float64Array(atom.length * width).fill(NONE);
  const from = new Int32Array(atom.length * width).fill(-1);
  const runBonus = new Float64Array(atom.length * width);
  for (let i = 0; i < atom.length; i++) {
    const row = i * width;
    const above = row - width;
    // The best cell of the previous row that a gap leads from, already charged for that gap.
    let gapScore = NONE;
    let gapFrom = -1;
    for (let k = 0; k < width; k++) {
      if (i > 0 && k >= 2) {
        const opened = best[above + k - 2]! - GAP_START;
        if (gapScore - GAP_EXTENSION >= opened) gapScore -= GAP_EXTENSION;
        else [gapScore, gapFrom] = [opened, k - 2];
      }
      if (chars[lo + k] !== atom[i]) continue;
      const bonus = bonuses.at(lo + k);
      if (i === 0) {
        [best[k], runBonus[k]] = [SCORE_MATCH + bonus * FIRST_CHAR_MULTIPLIER, bonus];
        continue;
      }
      const run = k > 0 ? Math.max(runBonus[above + k - 1]!, bonus) : 0;
      const adjacent = k > 0 ? best[above + k - 1]! + SCORE_MATCH + Math.max(run, BONUS_CONSECUTIVE) : NONE;
      const gapped = gapScore + SCORE_MATCH + bonus;
      if (adjacent === NONE && gapped === NONE) continue;
      if (adjacent >= gapped) [best[row + k], from[row + k], runBonus[row + k]] = [adjacent, k - 1, run];
      else [best[row + k], from[row + k], runBonus[row + k]] = [gapped, gapFrom, bonus];
    }
  }
  const last = (atom.length - 1) * width;
  let end = -1;
  for (let k = 0; k < width; k++) if (best[last + k]! > NONE && (end === -1 || best[last + k]! > best[last + end]!)) end = k;
  if (end === -1) return null;
  const indices: number[] = [];
  for (let i = atom.length - 1, k = end; i >= 0; k = from[i * width + k]!, i--) indices.unshift(lo + k);
  return { score: best[last + end]!, indices };
}
