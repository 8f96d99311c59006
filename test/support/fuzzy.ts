import type { Steps } from "../../src/runtime/timeSlice.js";
import { FuzzyMatcher } from "../../src/workspace/fuzzyMatch.js";
import { parseQuerySteps, type FuzzyQuery } from "../../src/workspace/fuzzyQuery.js";
import type { FuzzyMatch } from "../../src/workspace/fuzzyScore.js";

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

/** `candidate` matched against `query` at once. */
export function fuzzyMatch(query: FuzzyQuery, candidate: string): FuzzyMatch | null {
  return runToEnd(new FuzzyMatcher(query).steps(candidate));
}
