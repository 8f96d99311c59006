/**
 * Greedy subsequence alignments over an index of where each query character occurs in a
 * candidate: each costs O(atom length × log(candidate length)), however long the candidate, so
 * filtering and fallback scoring stay linear in the path.
 */

/** Ascending positions of each character of interest in a candidate. */
export type Occurrences = ReadonlyMap<string, readonly number[]>;

/** Where each character of `alphabet` occurs in `chars`: one pass over the candidate. */
export function indexOccurrences(chars: readonly string[], alphabet: ReadonlySet<string>): Occurrences {
  const occurrences = new Map<string, number[]>();
  for (let j = 0; j < chars.length; j++) {
    const char = chars[j]!;
    if (!alphabet.has(char)) continue;
    const positions = occurrences.get(char);
    if (positions) positions.push(j);
    else occurrences.set(char, [j]);
  }
  return occurrences;
}

/** `atom` matched at the first occurrence of each character at or after `from`; null when it does not fit. */
export function forwardAlignment(atom: readonly string[], occurrences: Occurrences, from: number): number[] | null {
  const indices: number[] = [];
  let next = from;
  for (const char of atom) {
    const positions = occurrences.get(char) ?? [];
    const at = firstAtOrAfter(positions, next);
    if (at === positions.length) return null;
    indices.push(positions[at]!);
    next = positions[at]! + 1;
  }
  return indices;
}

/** `atom` matched at the last occurrence of each character at or before `to`: the tightest alignment ending by `to`. */
export function backwardAlignment(atom: readonly string[], occurrences: Occurrences, to: number): number[] | null {
  const indices: number[] = new Array<number>(atom.length);
  let previous = to;
  for (let i = atom.length - 1; i >= 0; i--) {
    const positions = occurrences.get(atom[i]!) ?? [];
    const at = firstAtOrAfter(positions, previous + 1) - 1;
    if (at < 0) return null;
    indices[i] = positions[at]!;
    previous = positions[at]! - 1;
  }
  return indices;
}

/** Index of the first element of ascending `positions` that is at least `value` (its length if none). */
function firstAtOrAfter(positions: readonly number[], value: number): number {
  let [low, high] = [0, positions.length];
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (positions[middle]! < value) low = middle + 1;
    else high = middle;
  }
  return low;
}
