import { serverOverloaded } from "../protocol/errors.js";
import { Activity } from "../runtime/activity.js";

/** Default bound on requests admitted and not yet answered, as Codex's ingress queue (128). */
export const DEFAULT_MAX_PENDING_REQUESTS = 128;

/**
 * Runs request handlers: those that share a key (a thread id) one after another in arrival order,
 * all others concurrently. Admission is bounded; past the bound a request fails at once with
 * -32001 so the client can back off, instead of the server queueing without limit. Every admitted
 * request counts as `activity` until it settles.
 */
export class RequestScheduler {
  private pending = 0;
  private readonly tails = new Map<string, Promise<void>>();

  constructor(
    private readonly maxPending: number = DEFAULT_MAX_PENDING_REQUESTS,
    private readonly activity: Activity = new Activity(),
  ) {}

  /** Admits `task` (or throws -32001) and runs it after earlier tasks of the same key. */
  run<T>(key: string | undefined, task: () => Promise<T>): Promise<T> {
    if (this.pending >= this.maxPending) throw serverOverloaded();
    this.pending++;
    const done = this.activity.begin();
    const previous = key === undefined ? undefined : this.tails.get(key);
    const result = previous ? previous.then(task) : task();
    const settled = result.then(
      () => undefined,
      () => undefined,
    );
    if (key !== undefined) this.tails.set(key, settled);
    void settled.then(() => {
      this.pending--;
      done();
      if (key !== undefined && this.tails.get(key) === settled) this.tails.delete(key);
    });
    return result;
  }
}
