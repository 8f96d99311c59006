import { setImmediate } from "node:timers/promises";

/**
 * Cooperative sharing of the event loop for long CPU-bound loops: call {@link pause} after each
 * unit of work. It returns at once until the slice has run `sliceMs`, then waits one turn of the
 * event loop (after pending I/O), so requests that arrived meanwhile are read and served.
 */
export class TimeSlice {
  private startedAt = performance.now();

  constructor(private readonly sliceMs: number) {}

  /** Whether the slice has run its time: the next {@link pause} lets the event loop run. */
  get usedUp(): boolean {
    return performance.now() - this.startedAt >= this.sliceMs;
  }

  /** Lets the event loop run if this slice is used up, then starts the next slice. */
  async pause(): Promise<void> {
    if (!this.usedUp) return;
    await setImmediate();
    this.startedAt = performance.now();
  }
}

/** Work that yields between units, so a driver can share the event loop; it returns its result. */
export type Steps<T> = Generator<void, T, void>;

/**
 * Runs `steps`, pausing between units as `slice` says; undefined once `signal` is aborted. Units
 * run back to back, with no await between them, until the slice is used up: a search steps once
 * per path, and an await per step would cost more than the step.
 */
export async function runSliced<T>(steps: Steps<T>, slice: TimeSlice, signal: AbortSignal): Promise<T | undefined> {
  if (signal.aborted) return undefined;
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    if (!slice.usedUp) continue;
    await slice.pause();
    if (signal.aborted) {
      steps.return(undefined as T);
      return undefined;
    }
  }
}
