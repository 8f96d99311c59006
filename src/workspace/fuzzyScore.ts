/**
 * The scoring model of fuzzy matching, in the style of fzf: every matched character earns points,
 * more at the start of a path segment or word (and a run of consecutive matches keeps the bonus of
 * where it started), and gaps cost. So `main` ranks `src/main.ts` above `make/a/in.txt` above
 * `src/domain.ts`. The optimal aligner maximizes exactly what {@link alignmentScore} counts.
 */

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

/**
 * The bonus for matching at position `j` of a candidate whose characters (code points, as written)
 * are `codes`: the start of the path, of a path segment, of a word, or a camelCase hump. Computed
 * when asked: most positions of most paths are never asked about.
 */
export function bonusAt(codes: ArrayLike<number>, j: number): number {
  return j === 0 ? BONUS_START : boundaryBonus(codes[j - 1]!, codes[j]!);
}

const SLASH = 0x2f;

function boundaryBonus(previous: number, current: number): number {
  if (previous === SLASH) return BONUS_SEGMENT;
  // _ - . and space
  if (previous === 0x5f || previous === 0x2d || previous === 0x2e || previous === 0x20) return BONUS_WORD;
  if (isLowerOrDigit(previous) && isUpper(current)) return BONUS_CAMEL;
  return 0;
}

function isLowerOrDigit(code: number): boolean {
  if (code < 128) return (code >= 0x61 && code <= 0x7a) || (code >= 0x30 && code <= 0x39);
  return /\p{Ll}/u.test(String.fromCodePoint(code));
}

function isUpper(code: number): boolean {
  if (code < 128) return code >= 0x41 && code <= 0x5a;
  return /\p{Lu}/u.test(String.fromCodePoint(code));
}

/** The score of one atom matched at the first `count` of `indices` (ascending positions of the candidate); linear in the atom. */
export function alignmentScore(codes: ArrayLike<number>, indices: ArrayLike<number>, count = indices.length): number {
  let score = 0;
  let run = 0;
  for (let i = 0; i < count; i++) {
    const j = indices[i]!;
    const bonus = bonusAt(codes, j);
    if (i === 0) {
      score = SCORE_MATCH + bonus * FIRST_CHAR_MULTIPLIER;
      run = bonus;
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
