import { CandidateIndex } from "./fuzzyCandidate.js";
import { backwardAlignment, forwardEnd } from "./fuzzyGreedy.js";
import { optimalAlignment } from "./fuzzyOptimal.js";
import type { Steps } from "../runtime/timeSlice.js";
import { alignmentScore, type FuzzyMatch } from "./fuzzyScore.js";
import type { FuzzyQuery } from "./fuzzyQuery.js";

/**
 * Dynamic-programming cells (atom length × span of the path the atom can match in) one candidate
 * may use for optimal alignments; past it an atom gets the better of two greedy alignments. The
 * budget covers everyday queries on everyday paths, and caps the work on the rest, as fzf falls
 * back to its greedy algorithm when its scoring matrix would be too large.
 */
export const MAX_ALIGNMENT_CELLS = 4096;

/** Atoms matched, or scored, between two yields of {@link FuzzyMatcher.steps}. */
const ATOMS_PER_STEP = 256;

/**
 * Matches candidates against one query, one candidate at a time, reusing its arrays from one to the
 * next: the steps of a candidate must finish before the next candidate's begin.
 */
export class FuzzyMatcher {
  private readonly candidate: CandidateIndex;
  /** Per atom, for the current candidate: where its alignments can lie (lo..hi), and where its first greedy alignment ends. */
  private readonly lo: Int32Array;
  private readonly hi: Int32Array;
  private readonly greedyEnd: Int32Array;
  private readonly start = { at: 0 };
  /** Positions matched by some atom, marked: a union without sorting. */
  private matched = new Uint8Array(256);

  constructor(private readonly query: FuzzyQuery) {
    this.candidate = new CandidateIndex(query);
    [this.lo, this.hi, this.greedyEnd] = [new Int32Array(query.atoms.length), new Int32Array(query.atoms.length), new Int32Array(query.atoms.length)];
  }

  /**
   * Matches every atom of the query as a subsequence of `path` (a relative path) and scores it;
   * null when some atom does not match. Costs O(path + query × log path), plus at most
   * {@link MAX_ALIGNMENT_CELLS} cells of optimal alignment; a query with an atom longer than the
   * path fails at once. Yields every few hundred atoms, so a query of thousands can share the event loop.
   */
  *steps(path: string): Steps<FuzzyMatch | null> {
    const { query, candidate, lo, hi, greedyEnd, start } = this;
    const { atoms } = query;
    // A path has at least as many UTF-16 units as characters.
    if (atoms.length === 0 || query.longestAtom > path.length) return null;
    candidate.index(path);
    if (query.longestAtom > candidate.length) return null;
    // Every atom must match before any is scored: most candidates fail here, cheaply.
    for (let i = 0; i < atoms.length; i++) {
      if (i % ATOMS_PER_STEP === ATOMS_PER_STEP - 1) yield;
      const letters = atoms[i]!.letters;
      const end = forwardEnd(letters, candidate, start);
      if (end === -1) return null;
      lo[i] = start.at;
      greedyEnd[i] = end;
      // The latest alignment ends at the last occurrence of the atom's last letter.
      hi[i] = candidate.positions[candidate.end(letters[letters.length - 1]!) - 1]!;
    }
    if (this.matched.length < candidate.length) this.matched = new Uint8Array(Math.max(candidate.length, this.matched.length * 2));
    const matched = this.matched;
    let [cellsLeft, score, first, last] = [MAX_ALIGNMENT_CELLS, 0, candidate.length, -1];
    for (let i = 0; i < atoms.length; i++) {
      if (i % ATOMS_PER_STEP === ATOMS_PER_STEP - 1) yield;
      const atom = atoms[i]!;
      const cells = atom.length * (hi[i]! - lo[i]! + 1);
      let match: FuzzyMatch;
      if (cells <= cellsLeft) {
        cellsLeft -= cells;
        // Not null: the atom has alignments, all of them inside lo..hi.
        match = optimalAlignment(atom.letters, candidate, lo[i]!, hi[i]!)!;
      } else {
        // Both exist: the greedy alignment ends by its own end, and by the candidate's.
        const earliest = backwardAlignment(atom.letters, candidate, greedyEnd[i]!)!;
        match = bestOf(candidate.codes, earliest, backwardAlignment(atom.letters, candidate, candidate.length - 1)!);
      }
      score += match.score * atom.count;
      for (const index of match.indices) matched[index] = 1;
      first = Math.min(first, match.indices[0]!);
      last = Math.max(last, match.indices[match.indices.length - 1]!);
    }
    const indices: number[] = [];
    for (let j = first; j <= last; j++) {
      if (matched[j] === 0) continue;
      indices.push(j);
      matched[j] = 0;
    }
    return { score: Math.max(0, score), indices };
  }
}

/** The better scoring of two alignments of one atom (the earlier on a tie). */
function bestOf(codes: ArrayLike<number>, earliest: number[], latest: number[]): FuzzyMatch {
  const [early, late] = [alignmentScore(codes, earliest), alignmentScore(codes, latest)];
  return late > early ? { score: late, indices: latest } : { score: early, indices: earliest };
}
