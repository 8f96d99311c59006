/**
 * The scoring model of fuzzy matching, in the style of fzf: every matched character earns points,
 * more at the start of a path segment or word (and a run of consecutive matches keeps the bonus of
 * where it started), and gaps cost. So `main` ranks `src/main.ts` above `make/a/in.txt` above
 * `src/domain.ts`. The optimal aligner maximizes exactly what {@link alignmentScore} counts.
 */

/** How well a query matched a candidate: higher is better; `indices` are matched code-point positions, ascending. */
export interface FuzzyMatch {
  readonly score: number;
  readonly indices: number[];
}

export const SCORE_MATCH = 16;
export const GAP_START = 3;
export const GAP_EXTENSION = 1;
export const BONUS_CONSECUTIVE = 4;
const BONUS_START = 10;
const BONUS_SEGMENT = 9;
const BONUS_WORD = 8;
const BONUS_CAMEL = 7;
/** The first query character's bonus counts this many times: where a match starts matters most. */
export const FIRST_CHAR_MULTIPLIER = 2;

/** Extra points for matching at each position of a candidate, each computed once, when first asked for. */
export class Bonuses {
  private readonly cache: Float64Array;

  constructor(private readonly original: readonly string[]) {
    this.cache = new Float64Array(original.length).fill(Number.NaN);
  }

  /** The bonus at position `j`: the start of the path, of a path segment, of a word, or a camelCase hump. */
  at(j: number): number {
    const cached = this.cache[j]!;
    if (!Number.isNaN(cached)) return cached;
    return (this.cache[j] = boundaryBonus(this.original, j));
  }
}

function boundaryBonus(chars: readonly string[], j: number): number {
  if (j === 0) return BONUS_START;
  const previous = chars[j - 1]!;
  if (previous === "/") return BONUS_SEGMENT;
  if ("_-. ".includes(previous)) return BONUS_WORD;
  const current = chars[j]!;
  if (/\p{Ll}|\d/u.test(previous) && /\p{Lu}/u.test(current)) return BONUS_CAMEL;
  return 0;
}

/** The score of one atom matched at `indices` (ascending positions of the candidate); linear in the atom. */
export function alignmentScore(bonuses: Bonuses, indices: readonly number[]): number {
  let score = 0;
  let run = 0;
  for (let i = 0; i < indices.length; i++) {
    const j = indices[i]!;
    const bonus = bonuses.at(j);
    if (i === 0) {
      [score, run] = [SCORE_MATCH + bonus * FIRST_CHAR_MULTIPLIER, bonus];
      continue;
    }
    const gap = j - indices[i - 1]! - 1;
    if (gap === 0) {
      run = Math.max(run, bonus);
      score += SCORE_MATCH + Math.max(run, BONUS_CONSECUTIVE);
    } else {
      score += SCORE_MATCH + bonus - GAP_START - (gap - 1) * GAP_EXTENSION;
      run = bonus;
    }
  }
  return score;
}
