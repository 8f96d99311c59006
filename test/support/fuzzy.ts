import type { Steps } from "../../src/runtime/timeSlice.js";
import { FuzzyMatcher, NO_MATCH } from "../../src/workspace/fuzzyMatch.js";
import { parseQuerySteps, type FuzzyQuery } from "../../src/workspace/fuzzyQuery.js";

/** How well a query matched a candidate: higher is better; `indices` are matched code-point positions, ascending. */
export interface FuzzyMatch {
  readonly score: number;
  readonly indices: number[];
}

/** Runs `steps` to the end at once. */
function runToEnd<T>(steps: Steps<T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** A query parsed at once; throws when it has too many distinct words. */
export function parseQuery(query: string): FuzzyQuery {
  const parsed = runToEnd(parseQuerySteps(query));
  if ("tooManyWords" in parsed) throw new RangeError("too many distinct words");
  return parsed;
}

/** `candidate` (a path, or `name` in the directory `candidate`) matched by `matcher` at once, in steps. */
export function matchWith(matcher: FuzzyMatcher, candidate: string, name?: string): FuzzyMatch | null {
  const score = runToEnd(name === undefined ? matcher.steps("", candidate) : matcher.steps(candidate, name));
  return score === NO_MATCH ? null : { score, indices: matcher.indices() };
}

/** `candidate` matched against `query` at once. */
export function fuzzyMatch(query: FuzzyQuery, candidate: string): FuzzyMatch | null {
  return matchWith(new FuzzyMatcher(query), candidate);
}
