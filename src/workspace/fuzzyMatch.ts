import { CandidateIndex } from "./fuzzyCandidate.js";
import { alignmentCount, backwardAlignment, forwardEnd } from "./fuzzyGreedy.js";
import { optimalAlignment } from "./fuzzyOptimal.js";
import type { Steps } from "../runtime/timeSlice.js";
import { alignmentScore } from "./fuzzyScore.js";
import type { FuzzyQuery, QueryAtom } from "./fuzzyQuery.js";

/**
 * Dynamic-programming cells (atom length × span of the path the atom can match in) one candidate
 * may use for optimal alignments; past it an atom gets the better of two greedy alignments. The
 * budget covers everyday queries on everyday paths, and caps the work on the rest, as fzf falls
 * back to its greedy algorithm when its scoring matrix would be too large.
 */
export const MAX_ALIGNMENT_CELLS = 4096;

/** Atoms matched, or scored, between two yields of {@link FuzzyMatcher.steps}. */
const ATOMS_PER_STEP = 256;

/** What {@link FuzzyMatcher.match} and {@link FuzzyMatcher.steps} return for a path that does not match (scores are never negative). */
export const NO_MATCH = -1;

/**
 * Matches candidates against one query, one candidate at a time, reusing its arrays from one to the
 * next: the steps of a candidate must finish before the next candidate's begin. A match is its
 * score; its {@link indices} are built only when asked for, as a search keeps few of its matches.
 */
export class FuzzyMatcher {
  /**
   * Whether matching one path must be able to yield: a query of more than {@link ATOMS_PER_STEP}
   * atoms. Otherwise {@link match} does the same without a generator per path, which in a search
   * of 100,000 paths is much of the cost before V8 has optimized it.
   */
  readonly yieldsWithinPath: boolean;
  private readonly candidate: CandidateIndex;
  /** Per atom, for the current candidate: where its alignments can lie (lo..hi), and where its first greedy alignment ends. */
  private readonly lo: Int32Array;
  private readonly hi: Int32Array;
  private readonly greedyEnd: Int32Array;
  private readonly start = { at: 0 };
  /** One atom's alignment, and a second one to compare with (greedy): scratch, grown as needed. */
  private alignment = new Int32Array(64);
  private otherAlignment = new Int32Array(64);
  /** Positions matched by some atom of the last match hold `mark`: a union without sorting or clearing. */
  private matched = new Int32Array(256);
  private mark = 0;
  /** The last match: its first and last matched positions, its score so far, and the alignment cells it may still use. */
  private first = 0;
  private last = -1;
  private score = 0;
  private cellsLeft = 0;

  constructor(private readonly query: FuzzyQuery) {
    this.candidate = new CandidateIndex(query);
    const atoms = query.atoms.length;
    this.lo = new Int32Array(atoms);
    this.hi = new Int32Array(atoms);
    this.greedyEnd = new Int32Array(atoms);
    this.yieldsWithinPath = atoms > ATOMS_PER_STEP;
  }

  /**
   * The score of the path `name` in `dir` (`dir/name`, or `name` when `dir` is "") against every
   * atom of the query, or {@link NO_MATCH} when some atom is not a subsequence of it; paths of one
   * directory one after another share its indexing. Costs O(path + query × log path), plus at most
   * {@link MAX_ALIGNMENT_CELLS} cells of optimal alignment; a query with an atom longer than the
   * path fails at once. Never yields: use {@link steps} when {@link yieldsWithinPath}.
   */
  match(dir: string, name: string): number {
    const atoms = this.query.atoms.length;
    if (!this.begin(dir, name)) return NO_MATCH;
    if (atoms === 1) {
      // One word with one alignment (as most paths have) needs no index by letter: the only alignment is the best.
      const atom = this.query.atoms[0]!;
      if (this.alignment.length < atom.length) this.growAlignments(atom.length);
      const alignments = alignmentCount(atom.letters, this.candidate, this.alignment);
      if (alignments === 0) return NO_MATCH;
      if (alignments === 1) {
        this.keep(atom, alignmentScore(this.candidate.codes, this.alignment, atom.length));
        return Math.max(0, this.score);
      }
    }
    this.candidate.sortByLetter();
    if (!this.filter(0, atoms)) return NO_MATCH;
    this.align(0, atoms);
    return Math.max(0, this.score);
  }

  /** {@link match} as steps: yields every {@link ATOMS_PER_STEP} atoms, so a query of thousands can share the event loop. */
  *steps(dir: string, name: string): Steps<number> {
    const atoms = this.query.atoms.length;
    if (!this.begin(dir, name)) return NO_MATCH;
    this.candidate.sortByLetter();
    // Every atom must match before any is scored: most candidates fail here, cheaply.
    for (let from = 0; from < atoms; from += ATOMS_PER_STEP) {
      if (!this.filter(from, Math.min(atoms, from + ATOMS_PER_STEP))) return NO_MATCH;
      yield;
    }
    for (let from = 0; from < atoms; from += ATOMS_PER_STEP) {
      if (from > 0) yield;
      this.align(from, Math.min(atoms, from + ATOMS_PER_STEP));
    }
    return Math.max(0, this.score);
  }

  /** The positions (code points, ascending) the last match matched: call after a match, before the next candidate. */
  indices(): number[] {
    const indices: number[] = [];
    for (let j = this.first; j <= this.last; j++) if (this.matched[j] === this.mark) indices.push(j);
    return indices;
  }

  /** Reads the path for matching; false when it is too short for the longest atom. */
  private begin(dir: string, name: string): boolean {
    const { query, candidate } = this;
    // A path has at least as many UTF-16 units as characters.
    if (query.atoms.length === 0 || query.longestAtom > (dir === "" ? 0 : dir.length + 1) + name.length) return false;
    candidate.index(dir, name);
    if (query.longestAtom > candidate.length) return false;
    if (this.matched.length < candidate.length) this.matched = new Int32Array(Math.max(candidate.length, this.matched.length * 2));
    // A new mark leaves the marks of earlier candidates behind; at the end of its range, they are cleared.
    if (this.mark === 0x7fffffff) this.matched.fill((this.mark = 0));
    this.mark++;
    this.first = candidate.length;
    this.last = -1;
    this.score = 0;
    this.cellsLeft = MAX_ALIGNMENT_CELLS;
    return true;
  }

  /** Whether atoms `from..to` all match greedily, noting where each can lie. */
  private filter(from: number, to: number): boolean {
    const { candidate, lo, hi, greedyEnd, start } = this;
    const atoms = this.query.atoms;
    for (let i = from; i < to; i++) {
      const letters = atoms[i]!.letters;
      const end = forwardEnd(letters, candidate, start);
      if (end === -1) return false;
      lo[i] = start.at;
      greedyEnd[i] = end;
      // The latest alignment ends at the last occurrence of the atom's last letter.
      hi[i] = candidate.positions[candidate.end(letters[letters.length - 1]!) - 1]!;
    }
    return true;
  }

  /** Aligns and scores atoms `from..to`, which all match, marking the positions each matched. */
  private align(from: number, to: number): void {
    const { candidate, lo, hi } = this;
    const atoms = this.query.atoms;
    for (let i = from; i < to; i++) {
      const atom = atoms[i]!;
      const length = atom.length;
      if (this.alignment.length < length) this.growAlignments(length);
      const cells = length * (hi[i]! - lo[i]! + 1);
      let score: number;
      if (cells <= this.cellsLeft) {
        this.cellsLeft -= cells;
        // It aligns: the atom has alignments, all of them inside lo..hi.
        score = optimalAlignment(atom.letters, candidate, lo[i]!, hi[i]!, this.alignment);
      } else {
        score = this.betterGreedy(atom.letters, this.greedyEnd[i]!);
      }
      // After the alignment: the greedy one may have swapped the scratch arrays.
      this.keep(atom, score);
    }
  }

  /** Adds `atom`, aligned at {@link alignment} for `score`, to the current match: its score, per repeat, and its positions. */
  private keep(atom: QueryAtom, score: number): void {
    const { alignment, matched, mark } = this;
    const length = atom.length;
    this.score += score * atom.count;
    for (let k = 0; k < length; k++) matched[alignment[k]!] = mark;
    if (alignment[0]! < this.first) this.first = alignment[0]!;
    if (alignment[length - 1]! > this.last) this.last = alignment[length - 1]!;
  }

  /**
   * The better scoring of the two greedy alignments of `letters` (the earlier on a tie): ending by
   * its first greedy alignment's end, and by the candidate's end. Both exist. Left in {@link alignment}.
   */
  private betterGreedy(letters: Int32Array, greedyEnd: number): number {
    const { candidate, alignment, otherAlignment } = this;
    backwardAlignment(letters, candidate, greedyEnd, alignment);
    backwardAlignment(letters, candidate, candidate.length - 1, otherAlignment);
    const early = alignmentScore(candidate.codes, alignment, letters.length);
    const late = alignmentScore(candidate.codes, otherAlignment, letters.length);
    if (late <= early) return early;
    [this.alignment, this.otherAlignment] = [otherAlignment, alignment];
    return late;
  }

  private growAlignments(length: number): void {
    const size = Math.max(length, this.alignment.length * 2);
    this.alignment = new Int32Array(size);
    this.otherAlignment = new Int32Array(size);
  }
}
