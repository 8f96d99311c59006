/** The source of time for everything the server stamps; deterministic mode swaps it. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  nowMs(): number;
}

/** Real wall-clock time. */
export const systemClock: Clock = { nowMs: () => Date.now() };
