import { backwardAlignment, forwardAlignment, indexOccurrences, type Occurrences } from "./fuzzyGreedy.js";
import { optimalAlignment } from "./fuzzyOptimal.js";
import type { Steps } from "../runtime/timeSlice.js";
import { alignmentScore, Bonuses, type FuzzyMatch } from "./fuzzyScore.js";
import type { FuzzyQuery, QueryAtom } from "./fuzzyQuery.js";

/**
 * Dynamic-programming cells (atom length × span of the path the atom can match in) one candidate
 * may use for optimal alignments; past it an atom gets the better of two greedy alignments. The
 * budget covers everyday queries on everyday paths, and caps the work on the rest, as fzf falls
 * back to its greedy algorithm when its scoring matrix would be too large.
 */
export const MAX_ALIGNMENT_CELLS = 4096;

/** Atoms matched, or scored, between two yields of {@link fuzzyMatchSteps}. */
const ATOMS_PER_STEP = 256;

/**
 * Matches every atom of `query` as a subsequence of `candidate` (a relative path) and scores it;
 * null when some atom does not match. Costs O(path + query × log path), plus at most
 * {@link MAX_ALIGNMENT_CELLS} cells of optimal alignment; a query with an atom longer than the
 * path fails at once. Yields every few hundred atoms, so a query of thousands can share the event loop.
 */
export function* fuzzyMatchSteps(query: FuzzyQuery, candidate: string): Steps<FuzzyMatch | null> {
  if (query.atoms.length === 0) return null;
  const original = Array.from(candidate);
  if (query.longestAtom > original.length) return null;
  const chars = query.caseSensitive ? original : original.map((char) => char.toLowerCase());
  const occurrences = indexOccurrences(chars, query.alphabet);
  // Every atom must match before any is scored: most candidates fail here, cheaply.
  const placements: Placement[] = [];
  for (let i = 0; i < query.atoms.length; i++) {
    if (i % ATOMS_PER_STEP === ATOMS_PER_STEP - 1) yield;
    const placement = placeAtom(query.atoms[i]!, occurrences, chars.length);
    if (!placement) return null;
    placements.push(placement);
  }
  const bonuses = new Bonuses(original);
  let cellsLeft = MAX_ALIGNMENT_CELLS;
  let score = 0;
  const indices = new Set<number>();
  for (let i = 0; i < placements.length; i++) {
    if (i % ATOMS_PER_STEP === ATOMS_PER_STEP - 1) yield;
    const { atom, lo, hi, earliest, latest } = placements[i]!;
    const cells = atom.length * (hi - lo + 1);
    let match: FuzzyMatch;
    if (cells <= cellsLeft) {
      cellsLeft -= cells;
      // Not null: the atom has alignments, all of them inside lo..hi.
      match = optimalAlignment(atom.chars, chars, bonuses, lo, hi)!;
    } else {
      match = bestOf(bonuses, earliest, latest);
    }
    score += match.score * atom.count;
    for (const index of match.indices) indices.add(index);
  }
  return { score: Math.max(0, score), indices: [...indices].sort((a, b) => a - b) };
}

/** Where an atom can match: every alignment lies within `lo..hi`; `earliest` and `latest` are the tightest at either end. */
interface Placement {
  readonly atom: QueryAtom;
  readonly lo: number;
  readonly hi: number;
  readonly earliest: number[];
  readonly latest: number[];
}

/** Where `atom` can match in a candidate of `length` characters; null when it does not match. */
function placeAtom(atom: QueryAtom, occurrences: Occurrences, length: number): Placement | null {
  const first = forwardAlignment(atom.chars, occurrences, 0);
  if (!first) return null;
  // Both exist: `first` is an alignment ending by its own end, and by the candidate's.
  const earliest = backwardAlignment(atom.chars, occurrences, first[first.length - 1]!)!;
  const latest = backwardAlignment(atom.chars, occurrences, length - 1)!;
  return { atom, lo: first[0]!, hi: latest[latest.length - 1]!, earliest, latest };
}

/** The better scoring of two alignments of one atom (the earlier on a tie). */
function bestOf(bonuses: Bonuses, earliest: number[], latest: number[]): FuzzyMatch {
  const [early, late] = [alignmentScore(bonuses, earliest), alignmentScore(bonuses, latest)];
  return late > early ? { score: late, indices: latest } : { score: early, indices: earliest };
}
