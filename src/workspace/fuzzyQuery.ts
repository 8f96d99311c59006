import type { Steps } from "../runtime/timeSlice.js";

/**
 * Distinct words a query may have. Matching costs each path one step per distinct word, so the
 * bound keeps a search finite; a query typed or pasted into a file picker has a handful.
 */
export const MAX_QUERY_WORDS = 4096;

/** Words or characters handled between two yields of {@link parseQuerySteps}. */
const UNITS_PER_STEP = 4096;

/** One distinct word of a query; a word repeated `count` times scores `count` times, as each repeat would. */
export class QueryAtom {
  private cachedLetters: Int32Array | undefined;

  constructor(
    /** The word, lower-cased unless the query is case-sensitive. */
    readonly text: string,
    /** Its length in characters (code points), not UTF-16 units. */
    readonly length: number,
    public count: number,
    private readonly letterOf: ReadonlyMap<number, number>,
  ) {}

  /** The word's characters as the query's letter numbers; built on first use, so a word longer than every path never is. */
  get letters(): Int32Array {
    if (this.cachedLetters) return this.cachedLetters;
    const letters = new Int32Array(this.length);
    let i = 0;
    for (const char of this.text) letters[i++] = this.letterOf.get(char.codePointAt(0)!)!;
    return (this.cachedLetters = letters);
  }
}

/** A parsed query: whitespace-separated atoms that must all match; smart case, as fuzzy finders do. */
export interface FuzzyQuery {
  readonly atoms: readonly QueryAtom[];
  readonly caseSensitive: boolean;
  /** Every character (code point) of the atoms, numbered from 0: the letters a candidate is indexed by. */
  readonly letters: ReadonlyMap<number, number>;
  /** The longest atom's length: a shorter candidate cannot match. */
  readonly longestAtom: number;
}

/** Why a query cannot be searched: more distinct words than {@link MAX_QUERY_WORDS}. */
export interface TooManyWords {
  readonly tooManyWords: true;
}

/**
 * Splits `query` into distinct atoms, counting repeats; case matters only when the query has an
 * upper-case letter. Yields every few thousand words or characters, so a query of many megabytes
 * can share the event loop; stops at the first word past {@link MAX_QUERY_WORDS}.
 */
export function* parseQuerySteps(query: string): Steps<FuzzyQuery | TooManyWords> {
  const byText = new Map<string, QueryAtom>();
  const letters = new Map<number, number>();
  let [caseSensitive, longestAtom, units] = [false, 0, 0];
  for (const [word] of query.matchAll(/\S+/g)) {
    if (++units % UNITS_PER_STEP === 0) yield;
    const known = byText.get(word);
    if (known) {
      known.count++;
      continue;
    }
    if (word.toLowerCase() !== word) caseSensitive = true;
    if (byText.size === MAX_QUERY_WORDS) return { tooManyWords: true };
    let length = 0;
    for (const char of word) {
      if (++units % UNITS_PER_STEP === 0) yield;
      length++;
      const code = char.codePointAt(0)!;
      if (!letters.has(code)) letters.set(code, letters.size);
    }
    longestAtom = Math.max(longestAtom, length);
    byText.set(word, new QueryAtom(word, length, 1, letters));
  }
  // Case-insensitive only when every word is its own lower case, so the words need no change.
  return { atoms: [...byText.values()], caseSensitive, letters, longestAtom };
}
