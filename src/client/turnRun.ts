/**
 * The body of `AppServerClient.runTurn`: starts the turn, yields its events from the turn's queue
 * (releasing the server requests queued behind them), and on a timeout or abort interrupts the
 * turn and ends with the turn as it ended.
 */
import type { ClientRequestParams, ClientRequestResult } from "../protocol/types.js";
import { AbortedError, TurnTimeoutError } from "./clientErrors.js";
import type { ServerEvent, Turn, TurnOptions } from "./clientTypes.js";
import { TurnQueue, type Stop, type TurnEvents } from "./turnEvents.js";

/** What a running turn needs of its client. */
export interface TurnHost {
  /** Why the connection ended, once it has. */
  ended(): Error | null;
  readonly turnTimeoutMs: number | null;
  readonly interruptTimeoutMs: number;
  /** The client's running turns: a server request waits for each of its thread. */
  readonly queues: Set<TurnQueue>;
  /** Sends `turn/start`; `onLate` gets an answer that arrives after `stop` gave up. */
  startTurn(params: ClientRequestParams<"turn/start">, stop: AbortSignal, onLate: (result: unknown) => void): Promise<ClientRequestResult<"turn/start">>;
  interruptTurn(threadId: string, turnId: string, timeoutMs: number): Promise<void>;
}

/** Runs one turn for {@link TurnEvents}: see `AppServerClient.runTurn`. */
export async function* turnRun(host: TurnHost, run: TurnEvents, params: ClientRequestParams<"turn/start">, options: TurnOptions): AsyncGenerator<ServerEvent, void, undefined> {
  const threadId = run.threadId;
  const { signal } = options;
  if (signal?.aborted) throw new AbortedError(`the turn was aborted before it started`, signal.reason);
  const ended = host.ended();
  if (ended) throw ended;
  const timeoutMs = options.timeoutMs === undefined ? host.turnTimeoutMs : options.timeoutMs;
  const queue = new TurnQueue(threadId);
  const state: { stop: Stop | null; gaveUp: boolean } = { stop: null, gaveUp: false };
  const stopStart = new AbortController();
  let deadline: NodeJS.Timeout | undefined;
  let grace: NodeJS.Timeout | undefined;
  const interrupt = (turnId: string): void => {
    host.interruptTurn(threadId, turnId, host.interruptTimeoutMs).catch(() => undefined);
  };
  const halt = (why: Stop): void => {
    if (state.stop) return;
    // A turn that has already completed is not stopped by its timeout (an abort still ends the wait).
    if (queue.completed && why.kind === "timeout") return;
    state.stop = why;
    queue.stopGating();
    stopStart.abort();
    if (run.turnId !== null && !queue.completed) interrupt(run.turnId);
    grace = setTimeout(() => {
      state.gaveUp = true;
      queue.wake();
    }, host.interruptTimeoutMs);
    queue.wake();
  };
  const stopped = (turn: Turn | null): Error => {
    const why = state.stop!;
    return why.kind === "timeout"
      ? new TurnTimeoutError(threadId, run.turnId, timeoutMs ?? 0, turn)
      : new AbortedError(`turn ${run.turnId ?? "(not started)"} of thread ${threadId} was aborted${turn ? "" : " (its end was not confirmed)"}`, why.reason, turn);
  };
  const onAbort = (): void => halt({ kind: "abort", reason: signal!.reason });
  signal?.addEventListener("abort", onAbort, { once: true });
  if (timeoutMs !== null && Number.isFinite(timeoutMs)) deadline = setTimeout(() => halt({ kind: "timeout" }), timeoutMs);
  host.queues.add(queue);
  try {
    let started: ClientRequestResult<"turn/start">;
    try {
      // A turn/start answered after we gave up still started a turn nobody watches: interrupt it.
      started = await host.startTurn(params, stopStart.signal, (late) => {
        const id = (late as { turn?: { id?: unknown } } | null)?.turn?.id;
        if (typeof id === "string") interrupt(id);
      });
    } catch (error) {
      if (state.stop && error instanceof AbortedError) throw stopped(null);
      throw error;
    }
    run.turnId = queue.turnId = started.turn.id;
    if (state.stop && !queue.completed) interrupt(run.turnId);
    for (;;) {
      const entry = queue.shift();
      if (entry && "release" in entry) {
        entry.release();
        continue;
      }
      if (entry) {
        const event = entry.event;
        if (!queue.belongs(event)) continue;
        const completed = event.method === "turn/completed";
        if (completed) run.turn = event.params.turn;
        if (state.stop) {
          if (completed) throw stopped(event.params.turn);
          continue;
        }
        yield event;
        if (completed) return;
        continue;
      }
      if (state.stop && state.gaveUp) throw stopped(null);
      if (queue.ended) throw queue.ended;
      await queue.wait();
    }
  } finally {
    clearTimeout(deadline);
    clearTimeout(grace);
    signal?.removeEventListener("abort", onAbort);
    host.queues.delete(queue);
    queue.close();
  }
}
