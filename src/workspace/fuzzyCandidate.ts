import type { FuzzyQuery } from "./fuzzyQuery.js";

/** Marks a character that is no letter of the query. */
const NOT_A_LETTER = -1;

/**
 * One candidate path prepared for matching, in typed arrays a search reuses from path to path:
 * its characters (code points, as `Array.from` splits them), and where each letter of the query
 * occurs, ascending. Building it is one pass over the path with no allocation once the arrays are
 * big enough, and touches only the letters the path has, however many the query has.
 */
export class CandidateIndex {
  /** Characters of the candidate (code points), not UTF-16 units. */
  length = 0;
  /** The candidate's characters as written (not case-folded), `length` of them: what bonuses look at. */
  codes = new Int32Array(256);
  /** Each letter's positions, ascending, one letter after another (see {@link first} and {@link end}). */
  positions = new Int32Array(256);
  private letterAt = new Int32Array(256);
  /** Letters of the current candidate, in order of first appearance. */
  private present = new Int32Array(256);
  /** A letter's `first`, `count` and `end` are the current candidate's only when its stamp is `generation`. */
  private readonly stamp: Int32Array;
  private readonly firstAt: Int32Array;
  private readonly count: Int32Array;
  private generation = 0;
  /** The letter number of each ASCII character (case-folded as the query), or {@link NOT_A_LETTER}. */
  private readonly asciiLetter = new Int32Array(128).fill(NOT_A_LETTER);
  /** Letter numbers of the other characters seen, case-folded as the query. */
  private readonly otherLetter = new Map<number, number>();

  constructor(private readonly query: FuzzyQuery) {
    const letters = query.letters.size;
    [this.stamp, this.firstAt, this.count] = [new Int32Array(letters), new Int32Array(letters), new Int32Array(letters)];
    for (let code = 0; code < 128; code++) this.asciiLetter[code] = this.fold(code);
  }

  /** Where `letter`'s positions begin in {@link positions}. */
  first(letter: number): number {
    return this.stamp[letter] === this.generation ? this.firstAt[letter]! : 0;
  }

  /** Where `letter`'s positions end in {@link positions} (exclusive). */
  end(letter: number): number {
    return this.stamp[letter] === this.generation ? this.firstAt[letter]! + this.count[letter]! : 0;
  }

  /** Indexes `candidate`, replacing the one before. */
  index(candidate: string): void {
    if (this.codes.length < candidate.length) this.grow(candidate.length);
    const { codes, letterAt, present, stamp, count, firstAt } = this;
    const generation = ++this.generation;
    let [length, letters] = [0, 0];
    for (let unit = 0; unit < candidate.length; unit++) {
      let code = candidate.charCodeAt(unit);
      if (code >= 0xd800 && code <= 0xdbff && unit + 1 < candidate.length) {
        const low = candidate.charCodeAt(unit + 1);
        if (low >= 0xdc00 && low <= 0xdfff) {
          code = (code - 0xd800) * 0x400 + (low - 0xdc00) + 0x10000;
          unit++;
        }
      }
      const letter = code < 128 ? this.asciiLetter[code]! : this.letterOfOther(code);
      codes[length] = code;
      letterAt[length++] = letter;
      if (letter === NOT_A_LETTER) continue;
      if (stamp[letter] !== generation) {
        stamp[letter] = generation;
        count[letter] = 0;
        present[letters++] = letter;
      }
      count[letter]!++;
    }
    this.length = length;
    // Counting sort: each letter present gets a run of positions; filled in order, so each run ascends.
    let offset = 0;
    for (let i = 0; i < letters; i++) {
      const letter = present[i]!;
      firstAt[letter] = offset;
      offset += count[letter]!;
      count[letter] = 0;
    }
    for (let j = 0; j < length; j++) {
      const letter = letterAt[j]!;
      if (letter !== NOT_A_LETTER) this.positions[firstAt[letter]! + count[letter]!++] = j;
    }
  }

  private letterOfOther(code: number): number {
    let letter = this.otherLetter.get(code);
    if (letter === undefined) this.otherLetter.set(code, (letter = this.fold(code)));
    return letter;
  }

  /** The letter `code` is, case-folded as the query: a character whose lower case is not one character is none. */
  private fold(code: number): number {
    if (this.query.caseSensitive) return this.query.letters.get(code) ?? NOT_A_LETTER;
    const lower = String.fromCodePoint(code).toLowerCase();
    const folded = lower.codePointAt(0)!;
    if (lower.length !== String.fromCodePoint(folded).length) return NOT_A_LETTER;
    return this.query.letters.get(folded) ?? NOT_A_LETTER;
  }

  private grow(units: number): void {
    const size = Math.max(units, this.codes.length * 2);
    [this.codes, this.positions, this.letterAt, this.present] = [new Int32Array(size), new Int32Array(size), new Int32Array(size), new Int32Array(size)];
  }
}
