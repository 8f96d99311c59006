import { describe, expect, it } from "vitest";
import { CandidateIndex } from "../../src/workspace/fuzzyCandidate.js";
import { alignmentCount } from "../../src/workspace/fuzzyGreedy.js";
import { FuzzyMatcher, MAX_ALIGNMENT_CELLS, NO_MATCH } from "../../src/workspace/fuzzyMatch.js";
import { MAX_QUERY_WORDS, parseQuerySteps } from "../../src/workspace/fuzzyQuery.js";
import { fuzzyMatch, matchWith, parseQuery, type FuzzyMatch } from "../support/fuzzy.js";

/** A long query: Codex answers 300 characters. */
const LONG_QUERY_CHARS = 300;
import { alignmentScore } from "../../src/workspace/fuzzyScore.js";

/** A seeded pseudo-random source, so a failing case can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/** The best score of `atom` in `candidate` over every alignment there is (small inputs only); null when none. */
function bestBySearch(atom: string, candidate: string, caseSensitive: boolean): number | null {
  const [want, original] = [Array.from(atom), Array.from(candidate)];
  const have = caseSensitive ? original : original.map((char) => char.toLowerCase());
  const codes = original.map((char) => char.codePointAt(0)!);
  let best: number | null = null;
  const place = (i: number, from: number, indices: number[]) => {
    if (i === want.length) {
      const score = alignmentScore(codes, indices);
      best = best === null ? score : Math.max(best, score);
      return;
    }
    for (let j = from; j < have.length; j++) if (have[j] === want[i]) place(i + 1, j + 1, [...indices, j]);
  };
  place(0, 0, []);
  return best;
}

function match(query: string, candidate: string) {
  return fuzzyMatch(parseQuery(query), candidate);
}

/** `name` in `dir` matched by {@link FuzzyMatcher.match}, the path a search of a short query takes (not steps). */
function matchAtOnce(matcher: FuzzyMatcher, dir: string, name: string): FuzzyMatch | null {
  const score = matcher.match(dir, name);
  return score === NO_MATCH ? null : { score, indices: matcher.indices() };
}

describe("fuzzyMatch", () => {
  it("ranks segment starts and consecutive runs above scattered matches", () => {
    const [main, scattered, inWord] = [match("main", "src/main.ts")!, match("main", "make/a/in.txt")!, match("main", "src/domain.ts")!];
    expect(main.indices).toEqual([4, 5, 6, 7]);
    expect(main.score).toBeGreaterThan(scattered.score);
    expect(scattered.score).toBeGreaterThan(inWord.score);
    expect(match("main", "src/mian.ts")).toBeNull();
  });

  it("scores every match by the model of alignmentScore", () => {
    const next = random(7);
    const alphabet = "abAB/._- m";
    let checked = 0;
    for (let run = 0; run < 2000; run++) {
      const text = (length: number) => Array.from({ length }, () => alphabet[Math.floor(next() * alphabet.length)]).join("");
      const [query, candidate] = [text(1 + Math.floor(next() * 5)).trim() || "a", text(1 + Math.floor(next() * 40))];
      const found = match(query, candidate);
      if (!found || query.includes(" ")) continue;
      expect(found.score, `${query} in ${candidate}`).toBe(Math.max(0, alignmentScore(Array.from(candidate, (char) => char.codePointAt(0)!), found.indices)));
      checked++;
    }
    expect(checked).toBeGreaterThan(100);
  });

  it("finds the best alignment there is, and gives the same answers reused from path to path", () => {
    const next = random(11);
    const alphabet = "aAb/_.-éÉ😀";
    const chars = Array.from(alphabet);
    const text = (length: number) => Array.from({ length }, () => chars[Math.floor(next() * chars.length)]).join("");
    let checked = 0;
    for (let run = 0; run < 1500; run++) {
      const [query, candidate] = [text(1 + Math.floor(next() * 4)), text(1 + Math.floor(next() * 11))];
      const parsed = parseQuery(query);
      const reused = new FuzzyMatcher(parsed);
      matchWith(reused, text(30));
      const found = matchWith(reused, candidate);
      expect(found, `${query} in ${candidate}`).toEqual(fuzzyMatch(parsed, candidate));
      const best = bestBySearch(parsed.atoms[0]!.text, candidate, parsed.caseSensitive);
      expect(found?.score ?? null, `${query} in ${candidate}`).toBe(best === null ? null : Math.max(0, best));
      if (found) checked++;
    }
    expect(checked).toBeGreaterThan(100);
  });

  it("matches a path given as directory and name as the whole path, the directory's indexing reused or not", () => {
    const next = random(13);
    const chars = Array.from("aAb/_.-éÉ😀\u212Ax");
    const text = (length: number) => Array.from({ length }, () => chars[Math.floor(next() * chars.length)]).join("");
    for (let run = 0; run < 300; run++) {
      const parsed = parseQuery(text(1 + Math.floor(next() * 3)).replaceAll("/", "a"));
      const reused = new FuzzyMatcher(parsed);
      // Several names per directory, and directories that repeat, change, are empty, or outgrow the arrays.
      for (let dirs = 0; dirs < 4; dirs++) {
        const dir = dirs === 3 ? text(600) : text(Math.floor(next() * 12));
        for (let names = 0; names < 4; names++) {
          const name = text(1 + Math.floor(next() * 8));
          const whole = dir === "" ? name : `${dir}/${name}`;
          expect(matchWith(reused, dir, name), `${parsed.atoms.map((atom) => atom.text).join(" ")} in ${whole}`).toEqual(fuzzyMatch(parsed, whole));
        }
      }
    }
  });

  it("scores a one-word query that has one alignment from that alignment, as the full alignment does", () => {
    const next = random(17);
    const chars = Array.from("abA/_😀");
    const text = (length: number) => Array.from({ length }, () => chars[Math.floor(next() * chars.length)]).join("");
    const routes = [0, 0, 0];
    for (let run = 0; run < 3000; run++) {
      const parsed = parseQuery(text(1 + Math.floor(next() * 4)).replaceAll("/", "b"));
      const [dir, name] = [next() < 0.3 ? "" : text(Math.floor(next() * 8)), text(1 + Math.floor(next() * 10))];
      const whole = dir === "" ? name : `${dir}/${name}`;
      const candidate = new CandidateIndex(parsed);
      candidate.index(dir, name);
      routes[alignmentCount(parsed.atoms[0]!.letters, candidate, new Int32Array(whole.length))]!++;
      // The same matcher for the directory's other entries: one read of the directory, reused.
      const matcher = new FuzzyMatcher(parsed);
      matchAtOnce(matcher, dir, text(3));
      const found = matchAtOnce(matcher, dir, name);
      expect(found, `${parsed.atoms[0]!.text} in ${whole}`).toEqual(fuzzyMatch(parsed, whole));
      const best = bestBySearch(parsed.atoms[0]!.text, whole, parsed.caseSensitive);
      expect(found?.score ?? null, `${parsed.atoms[0]!.text} in ${whole}`).toBe(best === null ? null : Math.max(0, best));
    }
    // None, one and several alignments all came up.
    expect(Math.min(...routes)).toBeGreaterThan(300);
    // Letters that occur more than once in the span, yet one alignment; and two alignments, the later one better.
    expect(matchAtOnce(new FuzzyMatcher(parseQuery("aba")), "", "abab")).toEqual(match("aba", "abab"));
    expect(matchAtOnce(new FuzzyMatcher(parseQuery("ab")), "x", "a_ab")).toEqual(match("ab", "x/a_ab"));
  });

  it("past the alignment budget, still prefers the later alignment at a segment start", () => {
    const candidate = `xmxaxixn${"/y".repeat(MAX_ALIGNMENT_CELLS)}/src/main.ts`;
    const found = match("main", candidate)!;
    const start = candidate.length - "main.ts".length;
    expect(found.indices).toEqual([start, start + 1, start + 2, start + 3]);
  });

  it("matches a long query against many long paths with work linear in each path", () => {
    // Quadratic matching (query × path cells for every path) takes minutes here; bounded, a moment.
    const query = parseQuery("a".repeat(LONG_QUERY_CHARS));
    const paths = Array.from({ length: 1000 }, (_, i) => `${"a/".repeat(2000)}${i}`);
    for (const path of paths) expect(fuzzyMatch(query, path)?.indices).toHaveLength(LONG_QUERY_CHARS);
  });

  it("fails an atom longer than the path at once, counting characters, not UTF-16 units", () => {
    expect(fuzzyMatch(parseQuery("a".repeat(1_000_000)), "a".repeat(100))).toBeNull();
    expect(fuzzyMatch(parseQuery("😀".repeat(3)), "😀😀😀")?.indices).toEqual([0, 1, 2]);
    expect(fuzzyMatch(parseQuery("😀".repeat(4)), "😀😀😀")).toBeNull();
  });

  it("matches a repeated word once and scores it per repeat, as separate atoms would be", () => {
    const [once, thrice] = [match("main", "src/main.ts")!, match("main main  main", "src/main.ts")!];
    expect(thrice.indices).toEqual(once.indices);
    expect(thrice.score).toBe(3 * once.score);
    expect(parseQuery("a ".repeat(100_000)).atoms).toHaveLength(1);
  });

  it("shares the event loop within one path: a query of many words yields as it matches", () => {
    // 400 distinct words, each matching the path.
    const words = Array.from({ length: 400 }, (_, i) => `${"b".repeat(i % 20)}a${"b".repeat(Math.floor(i / 20))}`);
    const steps = new FuzzyMatcher(parseQuery(words.join(" "))).steps("", `${"b".repeat(20)}a${"b".repeat(20)}`);
    expect(steps.next().done).toBe(false);
  });

  it("stops parsing at the first word past the limit, however long the query", () => {
    const words = Array.from({ length: MAX_QUERY_WORDS + 1 }, (_, i) => `w${i}`).join(" ");
    const steps = parseQuerySteps(`${words} ${"x ".repeat(1_000_000)}`);
    let result;
    let yields = 0;
    for (let step = steps.next(); ; step = steps.next(), yields++) {
      if (step.done) {
        result = step.value;
        break;
      }
    }
    expect(result).toEqual({ tooManyWords: true });
    expect(yields).toBeLessThan(10);
    expect(parseQuery(words.split(" ").slice(0, MAX_QUERY_WORDS).join(" ")).atoms).toHaveLength(MAX_QUERY_WORDS);
  });
});
