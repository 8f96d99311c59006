import { serverOverloaded } from "../protocol/errors.js";
import { Activity } from "../runtime/activity.js";

/** Default bound on the requests one connection has admitted and not yet answered, as Codex's ingress queue (128). */
export const DEFAULT_MAX_PENDING_REQUESTS = 128;

/** Default bound on the requests all connections together have admitted and not yet answered. */
export const DEFAULT_MAX_PENDING_REQUESTS_TOTAL = 1024;

/** How many requests may be admitted and unanswered at once. */
export interface AdmissionLimits {
  /** Per connection (default {@link DEFAULT_MAX_PENDING_REQUESTS}). */
  readonly perConnection?: number;
  /** Over all connections together (default {@link DEFAULT_MAX_PENDING_REQUESTS_TOTAL}, and never below `perConnection`). */
  readonly total?: number;
}

/** Whom a request is admitted for. */
export interface Admission {
  /** The connection that sent it: its requests count against its own bound. */
  readonly owner: object;
  /** Passes the server-wide ceiling (still bounded per connection): for a connection's `initialize`. */
  readonly pastCeiling?: boolean;
}

/**
 * Runs request handlers: those that share a key (a thread id) one after another in arrival order,
 * all others concurrently. Admission is bounded per connection and over all connections; past a
 * bound a request fails at once with -32001 so the client can back off, instead of the server
 * queueing without limit. The per-connection bound is what keeps one flooding client from
 * starving the others; the ceiling bounds the server's total work. Every admitted request counts
 * as `activity` until it settles.
 */
export class RequestScheduler {
  private pending = 0;
  private readonly pendingByOwner = new Map<object, number>();
  private readonly tails = new Map<string, Promise<void>>();
  private readonly perConnection: number;
  private readonly total: number;

  constructor(
    limits: AdmissionLimits = {},
    private readonly activity: Activity = new Activity(),
  ) {
    this.perConnection = limits.perConnection ?? DEFAULT_MAX_PENDING_REQUESTS;
    // A lone connection (stdio) keeps its whole bound unless a ceiling was chosen explicitly.
    this.total = limits.total ?? Math.max(DEFAULT_MAX_PENDING_REQUESTS_TOTAL, this.perConnection);
  }

  /** Admits `task` for `admission.owner` (or throws -32001) and runs it after earlier tasks of the same key. */
  run<T>(admission: Admission, key: string | undefined, task: () => Promise<T>): Promise<T> {
    const { owner } = admission;
    const owned = this.pendingByOwner.get(owner) ?? 0;
    if (owned >= this.perConnection) throw serverOverloaded();
    if (this.pending >= this.total && !admission.pastCeiling) throw serverOverloaded();
    this.pending++;
    this.pendingByOwner.set(owner, owned + 1);
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
      const left = this.pendingByOwner.get(owner)! - 1;
      // Dropped at zero, so a closed connection leaves nothing behind.
      if (left === 0) this.pendingByOwner.delete(owner);
      else this.pendingByOwner.set(owner, left);
      done();
      if (key !== undefined && this.tails.get(key) === settled) this.tails.delete(key);
    });
    return result;
  }
}
