/** The source of time for everything the server stamps; deterministic mode swaps it. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  nowMs(): number;
}

/** Real wall-clock time. */
export const systemClock: Clock = { nowMs: () => Date.now() };

/** Deterministic mode's start of time: 2026-01-01T00:00:00Z. */
export const DETERMINISTIC_EPOCH_MS = Date.UTC(2026, 0, 1);

/** A clock that starts at `startMs` and moves `stepMs` forward each time it is read, whatever the real time. */
export function steppingClock(startMs = DETERMINISTIC_EPOCH_MS, stepMs = 1): Clock & { peekMs(): number } {
  let next = startMs;
  return {
    peekMs: () => next,
    nowMs: () => {
      const now = next;
      next += stepMs;
      return now;
    },
  };
}
