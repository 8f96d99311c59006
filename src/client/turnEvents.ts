/** A running turn's event queue (with the barriers that order server requests after earlier events), its iterator, and event subscriptions. */

import {
  AbortedError,
  ClientError,
  RequestTimeoutError,
  TurnFailedError,
} from "./clientErrors.js";
import type {
  RequestOptions,
  ServerEvent,
  Turn,
} from "./clientTypes.js";

/** Why a turn is being stopped: its timeout, or the caller's abort. */
export type Stop = { readonly kind: "timeout" } | { readonly kind: "abort"; readonly reason: unknown };

type QueueEntry = { readonly event: ServerEvent } | { readonly release: () => void };

/**
 * The events of one running `runTurn`, queued until its consumer pulls them, with barriers for
 * server requests: a request of the turn's thread is handled only once the consumer has taken
 * every event queued before it and come back for more (see {@link AppServerClient.runTurn}).
 */
export class TurnQueue {
  turnId: string | null = null;
  ended: Error | null = null;
  /** Whether server requests of this thread wait for this queue; false once the turn ended or was stopped. */
  private gating = true;
  /** Whether the turn's `turn/completed` has been queued (nothing more is). */
  completed = false;
  private entries: QueueEntry[] = [];
  private waker: (() => void) | null = null;

  constructor(readonly threadId: string) {}

  /** Whether `event` is of this turn (an event naming no turn is of the thread's current one). */
  belongs(event: ServerEvent): boolean {
    const params = event.params as { threadId?: string; turnId?: string; turn?: { id: string } };
    if (params.threadId !== this.threadId) return false;
    const id = params.turnId ?? params.turn?.id;
    return id === undefined || this.turnId === null || id === this.turnId;
  }

  offer(event: ServerEvent): void {
    if (this.completed || this.ended || !this.belongs(event)) return;
    this.entries.push({ event });
    if (event.method === "turn/completed" && this.turnId !== null && event.params.turn.id === this.turnId) {
      this.completed = true;
      this.gating = false;
    }
    this.wake();
  }

  /** Queues a barrier for a server request; false (and nothing queued) when this queue gates nothing. */
  addBarrier(release: () => void): boolean {
    if (!this.gating || this.ended) return false;
    this.entries.push({ release });
    this.wake();
    return true;
  }

  shift(): QueueEntry | undefined {
    return this.entries.shift();
  }

  /** Stops gating server requests and lets those waiting on this queue go. */
  stopGating(): void {
    this.gating = false;
    const barriers = this.entries.filter((entry): entry is { release: () => void } => "release" in entry);
    this.entries = this.entries.filter((entry) => !("release" in entry));
    for (const barrier of barriers) barrier.release();
  }

  end(error: Error): void {
    this.ended ??= error;
    this.stopGating();
    this.wake();
  }

  close(): void {
    this.stopGating();
    this.entries = [];
  }

  wait(): Promise<void> {
    return new Promise((resolve) => (this.waker = resolve));
  }

  wake(): void {
    const waker = this.waker;
    this.waker = null;
    waker?.();
  }
}

/**
 * The notifications of one turn, up to and including `turn/completed`: an async iterator
 * (`for await`), with the turn's id once started, the final turn once completed, `interrupt()` and
 * `text()`.
 */
export class TurnEvents implements AsyncIterableIterator<ServerEvent> {
  /** The turn's id, once `turn/start` has been answered. */
  turnId: string | null = null;
  /** The turn as it ended, once `turn/completed` has come. */
  turn: Turn | null = null;
  private readonly generator: AsyncGenerator<ServerEvent, void, undefined>;

  /** @internal Made by {@link AppServerClient.runTurn}. */
  constructor(
    readonly threadId: string,
    run: (self: TurnEvents) => AsyncGenerator<ServerEvent, void, undefined>,
    private readonly interruptTurn: (threadId: string, turnId: string) => Promise<unknown>,
  ) {
    this.generator = run(this);
  }

  next(): Promise<IteratorResult<ServerEvent, void>> {
    return this.generator.next();
  }

  /** Stops listening (as `break` does); the turn goes on in the server unless interrupted. */
  return(): Promise<IteratorResult<ServerEvent, void>> {
    return this.generator.return(undefined);
  }

  throw(error?: unknown): Promise<IteratorResult<ServerEvent, void>> {
    return this.generator.throw(error);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  /** Sends `turn/interrupt` for this turn (once started); keep iterating to see it end `interrupted`. */
  async interrupt(): Promise<void> {
    if (this.turnId === null) throw new ClientError("the turn has not started yet (iterate first)");
    await this.interruptTurn(this.threadId, this.turnId);
  }

  /**
   * Runs the turn to its end and returns its agent text (see {@link AppServerClient.collectText});
   * rejects with a {@link TurnFailedError} carrying the turn and its error when it ended `failed` or `interrupted`.
   */
  text(): Promise<string> {
    return collectText(this);
  }
}

/**
 * The notifications (those `accept` takes) from the moment of subscribing, queued until read:
 * `for await (const event of subscription)` (ends when the connection ends or on `close()`), or
 * `await subscription.nextEvent({ timeoutMs, signal })`. Close it when done.
 */
export class EventSubscription implements AsyncIterableIterator<ServerEvent> {
  private readonly queue: ServerEvent[] = [];
  private readonly wakers = new Set<() => void>();
  private ended: Error | null = null;
  private closed = false;

  /** @internal Made by {@link AppServerClient.subscribe}. */
  constructor(
    private readonly accept: (event: ServerEvent) => boolean,
    private readonly detach: (subscription: EventSubscription) => void,
    private readonly defaultTimeoutMs: number | null,
  ) {}

  /** @internal */
  offer(event: ServerEvent): void {
    if (this.closed || !this.accept(event)) return;
    this.queue.push(event);
    this.wake();
  }

  /** @internal */
  end(error: Error): void {
    this.ended ??= error;
    this.wake();
  }

  /** The next event; `done` once the connection has ended (or the subscription is closed) and the queue is empty. */
  async next(): Promise<IteratorResult<ServerEvent, undefined>> {
    try {
      return { value: await this.take(null), done: false };
    } catch (error) {
      if (error === this.ended || error === CLOSED) return { value: undefined, done: true };
      throw error;
    }
  }

  /**
   * The next event. Rejects with {@link RequestTimeoutError} after `timeoutMs` (default the
   * client's `requestTimeoutMs`), {@link AbortedError} on `signal`, and the connection's error once
   * it has ended (or a {@link ClientError} once closed) with nothing left queued.
   */
  nextEvent(options: RequestOptions = {}): Promise<ServerEvent> {
    return this.take(options.timeoutMs === undefined ? this.defaultTimeoutMs : options.timeoutMs, options.signal);
  }

  private async take(timeoutMs: number | null, signal?: AbortSignal): Promise<ServerEvent> {
    if (signal?.aborted) throw new AbortedError("the wait for a notification was aborted", signal.reason);
    const started = Date.now();
    for (;;) {
      const event = this.queue.shift();
      if (event) return event;
      if (this.closed) throw CLOSED;
      if (this.ended) throw this.ended;
      await new Promise<void>((resolve, reject) => {
        let timer: NodeJS.Timeout | undefined;
        const done = (): void => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", onAbort);
          this.wakers.delete(wake);
        };
        const wake = (): void => {
          done();
          resolve();
        };
        const onAbort = (): void => {
          done();
          reject(new AbortedError("the wait for a notification was aborted", signal!.reason));
        };
        this.wakers.add(wake);
        signal?.addEventListener("abort", onAbort, { once: true });
        if (timeoutMs !== null && Number.isFinite(timeoutMs)) {
          timer = setTimeout(() => {
            done();
            reject(new RequestTimeoutError(`no notification arrived within ${timeoutMs} ms`, "subscription", timeoutMs));
          }, Math.max(0, started + timeoutMs - Date.now()));
        }
      });
    }
  }

  /** Stops queueing (what is queued can still be read). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.detach(this);
    this.wake();
  }

  async return(): Promise<IteratorResult<ServerEvent, undefined>> {
    this.close();
    return { value: undefined, done: true };
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  private wake(): void {
    for (const wake of [...this.wakers]) wake();
  }
}

/** What a closed subscription's waits end with. */
const CLOSED = new ClientError("the subscription is closed");

/** The agent messages of a turn's events, joined by blank lines. */
export async function collectText(events: AsyncIterable<ServerEvent>): Promise<string> {
  const texts: string[] = [];
  for await (const event of events) {
    if (event.method === "item/completed" && event.params.item.type === "agentMessage") texts.push(event.params.item.text);
    // A turn that did not complete has no answer to give, whatever it streamed first.
    if (event.method === "turn/completed" && event.params.turn.status !== "completed") throw new TurnFailedError(event.params.turn);
  }
  return texts.join("\n\n");
}
