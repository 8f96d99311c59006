/** How well a query matched a candidate: higher is better; `indices` are matched code-point positions, ascending. */
export interface FuzzyMatch {
  readonly score: number;
  readonly indices: number[];
}

// Scores in the style of fzf: every matched character earns points, more at the start of a path
// segment or word (and a run of consecutive matches keeps the bonus of where it started), and gaps
// cost. So `main` ranks `src/main.ts` above `make/a/in.txt` above `src/domain.ts`.
const SCORE_MATCH = 16;
const GAP_START = 3;
const GAP_EXTENSION = 1;
const BONUS_CONSECUTIVE = 4;
const BONUS_START = 10;
const BONUS_SEGMENT = 9;
const BONUS_WORD = 8;
const BONUS_CAMEL = 7;
/** The first query character's bonus counts this many times: where a match starts matters most. */
const FIRST_CHAR_MULTIPLIER = 2;

/** A parsed query: whitespace-separated atoms that must all match; smart case, as fuzzy finders do. */
export interface FuzzyQuery {
  readonly atoms: readonly string[][];
  readonly caseSensitive: boolean;
}

/** Splits `query` into atoms; case matters only when the query has an upper-case letter. */
export function parseQuery(query: string): FuzzyQuery {
  const caseSensitive = query !== query.toLowerCase();
  const atoms = query
    .split(/\s+/)
    .filter((atom) => atom !== "")
    .map((atom) => Array.from(caseSensitive ? atom : atom.toLowerCase()));
  return { atoms, caseSensitive };
}

/**
 * Matches every atom of `query` as a subsequence of `candidate` (a relative path) and scores the
 * best alignment; null when some atom does not match.
 */
export function fuzzyMatch(query: FuzzyQuery, candidate: string): FuzzyMatch | null {
  if (query.atoms.length === 0) return null;
  const original = Array.from(candidate);
  const chars = query.caseSensitive ? original : original.map((char) => char.toLowerCase());
  let score = 0;
  const indices = new Set<number>();
  for (const atom of query.atoms) {
    const match = matchAtom(atom, chars, original);
    if (!match) return null;
    score += match.score;
    for (const index of match.indices) indices.add(index);
  }
  return { score: Math.max(0, score), indices: [...indices].sort((a, b) => a - b) };
}

/** Best alignment of one atom by dynamic programming over (atom character, candidate position). */
function matchAtom(atom: readonly string[], chars: readonly string[], original: readonly string[]): FuzzyMatch | null {
  if (!isSubsequence(atom, chars)) return null;
  const width = chars.length;
  const NONE = Number.NEGATIVE_INFINITY;
  // For atom[i] matched at position j: the best score of atom[0..i], where atom[i-1] went, and the
  // bonus the run of consecutive matches ending at j started with.
  const best = atom.map(() => new Float64Array(width).fill(NONE));
  const from = atom.map(() => new Int32Array(width).fill(-1));
  const runBonus = atom.map(() => new Float64Array(width));
  for (let i = 0; i < atom.length; i++) {
    // The best cell of the previous row that a gap leads from, already charged for that gap.
    let gapScore = NONE;
    let gapFrom = -1;
    for (let j = 0; j < width; j++) {
      if (i > 0 && j >= 2) {
        const opened = best[i - 1]![j - 2]! - GAP_START;
        if (gapScore - GAP_EXTENSION >= opened) gapScore -= GAP_EXTENSION;
        else [gapScore, gapFrom] = [opened, j - 2];
      }
      if (chars[j] !== atom[i]) continue;
      const bonus = boundaryBonus(original, j);
      if (i === 0) {
        [best[i]![j], runBonus[i]![j]] = [SCORE_MATCH + bonus * FIRST_CHAR_MULTIPLIER, bonus];
        continue;
      }
      const run = j > 0 ? Math.max(runBonus[i - 1]![j - 1]!, bonus) : 0;
      const adjacent = j > 0 ? best[i - 1]![j - 1]! + SCORE_MATCH + Math.max(run, BONUS_CONSECUTIVE) : NONE;
      const gapped = gapScore + SCORE_MATCH + bonus;
      if (adjacent === NONE && gapped === NONE) continue;
      if (adjacent >= gapped) [best[i]![j], from[i]![j], runBonus[i]![j]] = [adjacent, j - 1, run];
      else [best[i]![j], from[i]![j], runBonus[i]![j]] = [gapped, gapFrom, bonus];
    }
  }
  const last = best[atom.length - 1]!;
  let end = -1;
  for (let j = 0; j < width; j++) if (last[j]! > NONE && (end === -1 || last[j]! > last[end]!)) end = j;
  if (end === -1) return null;
  const indices: number[] = [];
  for (let i = atom.length - 1, j = end; i >= 0; j = from[i]![j]!, i--) indices.unshift(j);
  return { score: last[end]!, indices };
}

function isSubsequence(atom: readonly string[], chars: readonly string[]): boolean {
  let next = 0;
  for (const char of chars) if (char === atom[next] && ++next === atom.length) return true;
  return atom.length === 0;
}

/** Extra points for matching at position `j`: the start of a path segment, of a word, or a camelCase hump. */
function boundaryBonus(chars: readonly string[], j: number): number {
  if (j === 0) return BONUS_START;
  const previous = chars[j - 1]!;
  if (previous === "/") return BONUS_SEGMENT;
  if ("_-. ".includes(previous)) return BONUS_WORD;
  const current = chars[j]!;
  if (/\p{Ll}|\d/u.test(previous) && /\p{Lu}/u.test(current)) return BONUS_CAMEL;
  return 0;
}
