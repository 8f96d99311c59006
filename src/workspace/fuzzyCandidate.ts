import type { FuzzyQuery } from "./fuzzyQuery.js";

/** Marks a character that is no letter of the query. */
const NOT_A_LETTER = -1;

/**
 * One candidate path prepared for matching, in typed arrays a search reuses from path to path:
 * its characters (code points, as `Array.from` splits them), where the query's letters occur in
 * it, in path order, and (once {@link sortByLetter} has run) where each letter occurs, ascending.
 * Building it is one pass over the path with no allocation once the arrays are big enough, and
 * touches only the letters the path has, however many the query has. A path is given as its
 * directory and its name: the directory's pass is kept and reused while the directory stays the
 * same, as it does for all the entries of one directory.
 */
export class CandidateIndex {
  /** Characters of the candidate (code points), not UTF-16 units. */
  length = 0;
  /** The candidate's characters as written (not case-folded), `length` of them: what bonuses look at. */
  codes = new Int32Array(256);
  /** Each letter's positions, ascending, one letter after another (see {@link first} and {@link end}). */
  positions = new Int32Array(256);
  /** The current candidate's positions that are letters of the query, in order (`hits` of them), and the letter at each. */
  hitAt = new Int32Array(256);
  hitLetter = new Int32Array(256);
  hits = 0;
  /** Letters of the current candidate, in order of first appearance (`letters` of them). */
  private present = new Int32Array(256);
  private letters = 0;
  /** A letter's `first`, `count` and `end` are the current candidate's only when its stamp is `generation`. */
  private readonly stamp: Int32Array;
  private readonly firstAt: Int32Array;
  private readonly count: Int32Array;
  private generation = 0;
  /** The directory indexed last ("dir/" as the start of a path), and where its pass ended: characters, hits, letters and each letter's count. */
  private directory: string | undefined;
  private directoryLength = 0;
  private directoryHits = 0;
  private directoryLetters = 0;
  private directoryCount = new Int32Array(256);
  /** The letter number of each ASCII character (case-folded as the query), or {@link NOT_A_LETTER}. */
  private readonly asciiLetter = new Int32Array(128).fill(NOT_A_LETTER);
  /** Letter numbers of the other characters seen, case-folded as the query. */
  private readonly otherLetter = new Map<number, number>();

  constructor(private readonly query: FuzzyQuery) {
    const letters = query.letters.size;
    [this.stamp, this.firstAt, this.count] = [new Int32Array(letters), new Int32Array(letters), new Int32Array(letters)];
    for (let code = 0; code < 128; code++) this.asciiLetter[code] = this.fold(code);
  }

  /** Where `letter`'s positions begin in {@link positions} (after {@link sortByLetter}). */
  first(letter: number): number {
    return this.stamp[letter] === this.generation ? this.firstAt[letter]! : 0;
  }

  /** Where `letter`'s positions end in {@link positions} (exclusive; after {@link sortByLetter}). */
  end(letter: number): number {
    return this.stamp[letter] === this.generation ? this.firstAt[letter]! + this.count[letter]! : 0;
  }

  /** Reads the path `name` in `dir` (`dir/name`, or `name` when `dir` is ""), replacing the one before: its characters and its hits. */
  index(dir: string, name: string): void {
    const units = dir.length + 1 + name.length;
    if (this.codes.length < units) this.grow(units);
    const { present, stamp, count } = this;
    const generation = ++this.generation;
    if (dir !== this.directory) {
      this.length = this.hits = this.letters = 0;
      if (dir !== "") {
        this.scan(dir, generation);
        this.scan("/", generation);
      }
      this.directory = dir;
      this.directoryLength = this.length;
      this.directoryHits = this.hits;
      this.directoryLetters = this.letters;
      for (let i = 0; i < this.letters; i++) this.directoryCount[i] = count[present[i]!]!;
    } else {
      // The directory's characters and hits are still in place: only its letters' counts are restored.
      this.length = this.directoryLength;
      this.hits = this.directoryHits;
      this.letters = this.directoryLetters;
      for (let i = 0; i < this.letters; i++) {
        stamp[present[i]!] = generation;
        count[present[i]!] = this.directoryCount[i]!;
      }
    }
    this.scan(name, generation);
  }

  /** Fills {@link positions} for the path read last: what {@link first} and {@link end} look up. */
  sortByLetter(): void {
    // Counting sort: each letter present gets a run of positions; filled in order, so each run ascends.
    const { present, count, firstAt, positions, hitAt, hitLetter } = this;
    let offset = 0;
    for (let i = 0; i < this.letters; i++) {
      const letter = present[i]!;
      firstAt[letter] = offset;
      offset += count[letter]!;
      count[letter] = 0;
    }
    for (let hit = 0; hit < this.hits; hit++) {
      const letter = hitLetter[hit]!;
      positions[firstAt[letter]! + count[letter]!++] = hitAt[hit]!;
    }
  }

  /** Appends the characters of `text` to the candidate: their codes, and where the query's letters are. */
  private scan(text: string, generation: number): void {
    const { codes, hitAt, hitLetter, present, stamp, count, asciiLetter } = this;
    let { length, hits, letters } = this;
    for (let unit = 0; unit < text.length; unit++) {
      let code = text.charCodeAt(unit);
      let letter: number;
      if (code < 128) {
        letter = asciiLetter[code]!;
      } else {
        if (code >= 0xd800 && code <= 0xdbff && unit + 1 < text.length) {
          const low = text.charCodeAt(unit + 1);
          if (low >= 0xdc00 && low <= 0xdfff) {
            code = (code - 0xd800) * 0x400 + (low - 0xdc00) + 0x10000;
            unit++;
          }
        }
        letter = this.letterOfOther(code);
      }
      codes[length] = code;
      if (letter !== NOT_A_LETTER) {
        hitAt[hits] = length;
        hitLetter[hits++] = letter;
        if (stamp[letter] !== generation) {
          stamp[letter] = generation;
          count[letter] = 0;
          present[letters++] = letter;
        }
        count[letter]!++;
      }
      length++;
    }
    this.length = length;
    this.hits = hits;
    this.letters = letters;
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
    [this.codes, this.positions, this.hitAt, this.hitLetter, this.present, this.directoryCount] = [
      new Int32Array(size),
      new Int32Array(size),
      new Int32Array(size),
      new Int32Array(size),
      new Int32Array(size),
      new Int32Array(size),
    ];
    // The arrays held the directory's pass.
    this.directory = undefined;
  }
}
