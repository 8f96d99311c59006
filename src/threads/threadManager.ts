import type { Config } from "../config/schema.js";
import type {
  ServerRequestMethod,
  ServerRequestParams,
} from "../protocol/methods.js";
import type { Thread, ThreadReadState } from "../protocol/thread.js";
import type {
  ThreadForkParams,
  ThreadResumeParams,
  ThreadSessionResponse,
  ThreadStartParams,
  ThreadTurnsListParams,
} from "../protocol/threadMethods.js";
import type { Turn, TurnError } from "../protocol/turn.js";
import type { TurnStartParams, TurnSteerParams } from "../protocol/turnMethods.js";
import { invalidRequest } from "../protocol/errors.js";
import { ModelError } from "../agent/model/modelError.js";
import { TurnCancelled } from "../agent/approvals.js";
import { runTurn, type TurnRunnerDeps } from "../agent/turnRunner.js";
import type { PendingInput, TurnMode } from "../agent/turnTypes.js";
import { reviewRequest, ReviewTargetError, type ReviewRequest } from "../agent/review.js";
import type { ReviewStartParams } from "../protocol/reviewMethods.js";
import type { ThreadItem } from "../protocol/items.js";
import { checkTurnInput } from "../agent/userInputs.js";
import { AGENT_STEPS, AgentWarmUp } from "../agent/warmUp.js";
import type { Activity } from "../runtime/activity.js";
import { DEFAULT_CONTEXT_WINDOW } from "../agent/compaction.js";
import { ActiveTurn, type OpenRequest, type TurnHost } from "./activeTurn.js";
import { inProgressTurn, storedThread, turnError } from "./wireViews.js";
import type { Clock } from "../runtime/clock.js";
import type { IdSource } from "../runtime/ids.js";
import type { Logger } from "../runtime/logger.js";
import { SERVER_VERSION } from "../runtime/version.js";
import { checkThreadId, noRolloutFound, threadNotFound } from "./errors.js";
import { decodeOffsetCursor, encodeOffsetCursor, turnsPage } from "./paging.js";
import type { ThreadRecord, ThreadSettings } from "./records.js";
import { overrideSettings, resolveSettings, turnOverrides } from "./settings.js";
import { ThreadHistory } from "./threadHistory.js";
import { loadedThread, type LoadedThread } from "./loadedThread.js";
import { ThreadEdits, type LoadedThreads } from "./threadEdits.js";
import type { Outcome, ThreadEmitter } from "./threadEvents.js";
import { summarize, type ThreadStore } from "./threadStore.js";
import { ThreadFileWriter } from "./threadFile.js";
import { chargeTurn, checkGoalAllowsTurn } from "./goals.js";

/** Sends server → client requests to subscribers; the server layer owns ids and connections. */
export interface ClientRequester<S> {
  open<M extends ServerRequestMethod>(recipients: Iterable<S>, method: M, params: ServerRequestParams<M>): OpenRequest<M>;
  /** Sends a still-pending request to one more recipient (a client that resumed the thread). */
  replay(id: number, method: ServerRequestMethod, params: ServerRequestParams<ServerRequestMethod>, recipient: S): void;
  withdraw(id: number, reason: string): void;
  /** The request is over: each of `recipients` it was sent to gets `serverRequest/resolved` under its own id; then it is forgotten. */
  resolved(id: number, recipients: Iterable<S>, threadId: string): void;
  /** The request is over and is forgotten without a `serverRequest/resolved`. */
  forget(id: number): void;
}

/** What the ThreadManager needs. */
export interface ThreadManagerOptions<S> {
  readonly store: ThreadStore;
  /** The server's configuration; `current` changes when a client writes the config. */
  readonly config: { readonly current: Config };
  readonly clock: Clock;
  readonly ids: IdSource;
  readonly logger: Logger;
  readonly emit: ThreadEmitter<S>;
  readonly requests: ClientRequester<S>;
  /** The directory relative `cwd`s resolve against. */
  readonly serverCwd: string;
  /** How long an idle thread nobody is subscribed to stays loaded (ms). */
  readonly unloadDelayMs: number;
  /** The server's work in progress: running turns count, and the agent warm-up waits for a quiet spell. */
  readonly activity: Activity;
  /** What turns run with: environment (API keys), tools, model clients. */
  readonly agent: Omit<TurnRunnerDeps, "config">;
}

/** Codex counts 95 % of the context window as usable (its `effective_context_window_percent`). */
const USABLE_CONTEXT_PERCENT = 95;

/** Thrown into a turn's model stream and tools when it is interrupted. */
class TurnInterrupted extends Error {
  constructor() {
    super("interrupted by the client");
    this.name = "TurnInterrupted";
  }
}

/**
 * The only door to thread state: creates, loads, subscribes, lists and unloads threads, and writes
 * every change to the thread's file as it happens. Handlers call it and never touch storage.
 */
export class ThreadManager<S extends object> implements LoadedThreads<S> {
  private readonly loaded = new Map<string, LoadedThread<S>>();
  /** Reads and edits of loaded-or-stored threads (name, metadata, goals, archive, read, list). */
  readonly edits: ThreadEdits<S>;
  private readonly warmUp: AgentWarmUp;

  constructor(private readonly options: ThreadManagerOptions<S>) {
    this.edits = new ThreadEdits(this, options);
    // Last, the login profile: its first command should not wait for it either (see LoginShell).
    const prepareShell = () => options.agent.loginShell.prepare(options.config.current, options.agent.env);
    this.warmUp = new AgentWarmUp(options.activity, [...AGENT_STEPS, prepareShell]);
  }

  /** `thread/start`: creates a thread, stores it at once (unless ephemeral) and subscribes `subscriber`. */
  async start(params: ThreadStartParams, subscriber: S, originator: string | null = null): Promise<Outcome<ThreadSessionResponse>> {
    const { clock, ids, serverCwd } = this.options;
    const settings = resolveSettings(this.options.config.current, params, serverCwd);
    const id = ids.uuid("thread");
    const at = clock.nowMs();
    const record: Extract<ThreadRecord, { type: "thread" }> = {
      type: "thread",
      at,
      identity: {
        id,
        sessionId: id,
        createdAtMs: at,
        forkedFromId: null,
        source: "vscode",
        threadSource: params.threadSource ?? null,
        cliVersion: SERVER_VERSION,
        originator,
        ...(params.dynamicTools?.length ? { dynamicTools: params.dynamicTools } : {}),
      },
      settings,
    };
    const thread = await this.createLoaded(new ThreadHistory(record.identity, settings, at), record, params.ephemeral ?? false, []);
    thread.subscribers.add(subscriber);
    return {
      result: this.sessionResponse(thread, false),
      after: () => {
        this.options.emit(thread.subscribers, "thread/started", { thread: this.toThread(thread, false) });
        this.warmUp.request();
      },
    };
  }

  /** `thread/resume`: loads a stored thread (or joins the loaded one), applies overrides, subscribes. */
  async resume(params: ThreadResumeParams, subscriber: S): Promise<Outcome<ThreadSessionResponse>> {
    checkThreadId(params.threadId);
    let thread = this.loaded.get(params.threadId);
    if (!thread) {
      const stored = await this.options.store.read(params.threadId);
      if (!stored || stored.summary.archived) throw noRolloutFound(params.threadId);
      thread = loadedThread(stored.history, false, stored.summary.path, await ThreadFileWriter.open(stored.summary.path, stored.intactBytes));
      this.loaded.set(params.threadId, thread);
      this.options.emit([subscriber], "thread/status/changed", { threadId: params.threadId, status: thread.status });
    }
    await this.applyOverrides(thread, params);
    this.subscribe(thread, subscriber);
    const loaded = thread;
    return {
      result: this.sessionResponse(thread, !params.excludeTurns),
      after: () => {
        this.warmUp.request();
        this.replayTokenUsage(loaded, [subscriber]);
        const goal = loaded.history.goal;
        if (goal) this.options.emit([subscriber], "thread/goal/updated", { threadId: params.threadId, turnId: null, goal });
        // A client joining mid-turn learns of the items in flight before their deltas and requests.
        const active = loaded.active;
        for (const item of active?.openItems() ?? []) {
          this.options.emit([subscriber], "item/started", { threadId: params.threadId, turnId: active!.id, item, startedAtMs: item.startedAtMs ?? 0 });
        }
        for (const pending of active?.pendingRequests() ?? []) {
          this.options.requests.replay(pending.id, pending.method, pending.params, subscriber);
        }
      },
    };
  }

  /** `thread/fork`: a new thread with a copy of the source's history (up to `lastTurnId`). */
  async fork(params: ThreadForkParams, subscriber: S): Promise<Outcome<ThreadSessionResponse>> {
    checkThreadId(params.threadId);
    const source = await this.history(params.threadId, noRolloutFound);
    const { clock, ids, serverCwd } = this.options;
    const settings = overrideSettings(source.settings, this.options.config.current, params, serverCwd);
    const id = ids.uuid("thread");
    const at = clock.nowMs();
    const record: Extract<ThreadRecord, { type: "thread" }> = {
      type: "thread",
      at,
      identity: { ...source.identity, id, sessionId: id, createdAtMs: at, forkedFromId: source.identity.id, threadSource: params.threadSource ?? source.identity.threadSource },
      settings,
    };
    const copied = source.recordsForFork(params.lastTurnId ?? null, at);
    if (!copied) throw invalidRequest(`turn ${params.lastTurnId} is not a turn of thread ${params.threadId}`);
    const history = new ThreadHistory(record.identity, settings, at);
    for (const copy of copied) history.apply(copy);
    const thread = await this.createLoaded(history, record, params.ephemeral ?? false, copied);
    thread.subscribers.add(subscriber);
    return {
      result: this.sessionResponse(thread, !params.excludeTurns),
      after: () => {
        this.options.emit(thread.subscribers, "thread/started", { thread: this.toThread(thread, false) });
        this.warmUp.request();
      },
    };
  }

  /**
   * `turn/start`: stores the turn's start and returns it in progress; it runs once the response is
   * out. With a turn already running, the input is steered into it and that turn is returned, as
   * Codex does.
   */
  async startTurn(params: TurnStartParams): Promise<Outcome<{ turn: Turn }>> {
    checkThreadId(params.threadId);
    const thread = this.loaded.get(params.threadId);
    if (!thread) throw threadNotFound(params.threadId);
    const pending = this.pendingInput(params);
    const running = thread.active;
    if (running?.enqueue(pending)) return { result: { turn: inProgressTurn(running.id) } };
    await thread.ending;
    checkGoalAllowsTurn(thread.history.goal);
    await this.applySettings(thread, turnOverrides(thread.history.settings, params, this.options.serverCwd));
    const turn = await this.beginTurn(thread);
    turn.enqueue(pending);
    return { result: { turn: inProgressTurn(turn.id) }, after: () => this.announceAndRun(thread, turn, params.outputSchema, { kind: "regular" }) };
  }

  /**
   * `thread/compact/start`: a turn that only summarizes the history (no input, not steerable), as
   * Codex runs it; answered at once, after any running turn has ended.
   */
  async compact(threadId: string): Promise<Outcome<Record<string, never>>> {
    checkThreadId(threadId);
    const thread = this.loaded.get(threadId);
    if (!thread) throw threadNotFound(threadId);
    await thread.ending;
    if (thread.active) throw invalidRequest(`thread ${threadId} is running a turn; compact it once the turn ends`);
    const turn = await this.beginTurn(thread);
    turn.closeInput();
    return { result: {}, after: () => this.announceAndRun(thread, turn, null, { kind: "compact" }) };
  }

  /**
   * `review/start`: a review turn on the thread itself (Codex's inline delivery) over the changes
   * git shows for the target; the thread keeps the review, not the reviewer's steps.
   */
  async review(params: ReviewStartParams): Promise<Outcome<{ turn: Turn; reviewThreadId: string }>> {
    checkThreadId(params.threadId);
    const thread = this.loaded.get(params.threadId);
    if (!thread) throw threadNotFound(params.threadId);
    await thread.ending;
    if (thread.active) throw invalidRequest(`thread ${params.threadId} is running a turn; start the review once it ends`);
    let review: ReviewRequest;
    try {
      review = await reviewRequest(params.target, thread.history.settings.cwd);
    } catch (error) {
      if (error instanceof ReviewTargetError) throw invalidRequest(error.message);
      throw error;
    }
    const turn = await this.beginTurn(thread);
    turn.closeInput();
    const message: ThreadItem = { type: "userMessage", id: turn.id, clientId: null, content: [{ type: "text", text: review.label, text_elements: [] }] };
    return {
      result: { turn: { ...inProgressTurn(turn.id), items: [message] }, reviewThreadId: params.threadId },
      after: () => this.announceAndRun(thread, turn, null, { kind: "review", review }),
    };
  }

  private async beginTurn(thread: LoadedThread<S>): Promise<ActiveTurn> {
    const turnId = this.options.ids.uuid("turn");
    const startedAtMs = this.options.clock.nowMs();
    const turn = new ActiveTurn(turnId, thread.history.identity.id, startedAtMs, this.turnHost(thread));
    thread.active = turn;
    clearTimeout(thread.unloadTimer);
    await this.write(thread, { type: "turnStarted", at: startedAtMs, turnId }, true);
    return turn;
  }

  private announceAndRun(thread: LoadedThread<S>, turn: ActiveTurn, outputSchema: unknown, mode: TurnMode): void {
    const threadId = turn.threadId;
    thread.status = { type: "active", activeFlags: [] };
    this.options.emit(thread.subscribers, "thread/status/changed", { threadId, status: thread.status });
    this.options.emit(thread.subscribers, "turn/started", {
      threadId,
      turn: { ...inProgressTurn(turn.id), startedAt: Math.floor(turn.startedAtMs / 1000) },
    });
    void this.runActiveTurn(thread, turn, outputSchema, mode);
  }

  /** `turn/steer`: queues input for the running turn's next model call. */
  steerTurn(params: TurnSteerParams): { turnId: string } {
    checkThreadId(params.threadId);
    const thread = this.loaded.get(params.threadId);
    if (!thread) throw threadNotFound(params.threadId);
    const turn = thread.active;
    if (!turn) throw invalidRequest("no active turn to steer");
    if (turn.id !== params.expectedTurnId) {
      throw invalidRequest(`expected active turn id \`${params.expectedTurnId}\` but found \`${turn.id}\``);
    }
    const pending = this.pendingInput(params);
    if (!turn.enqueue(pending)) throw invalidRequest("no active turn to steer");
    return { turnId: turn.id };
  }

  /**
   * `turn/interrupt`: the turn takes no more input at once; once the response is out, its model
   * stream and tools are aborted and it completes `interrupted` without waiting for them.
   */
  interruptTurn(threadId: string, turnId: string): Outcome<Record<string, never>> {
    checkThreadId(threadId);
    const thread = this.loaded.get(threadId);
    if (!thread) throw threadNotFound(threadId);
    const turn = thread.active;
    if (!turn) throw invalidRequest("no active turn to interrupt");
    if (turn.id !== turnId) throw invalidRequest(`expected active turn id ${turnId} but found ${turn.id}`);
    turn.closeInput();
    thread.active = undefined;
    let responded!: () => void;
    void this.queueEnd(thread, turn, "interrupted", null, new Promise<void>((resolve) => (responded = resolve)));
    return {
      result: {},
      after: () => {
        turn.controller.abort(new TurnInterrupted());
        responded();
      },
    };
  }

  /** Runs a turn to its end; whatever happens, it ends exactly once with one `turn/completed`. */
  private async runActiveTurn(thread: LoadedThread<S>, turn: ActiveTurn, outputSchema: unknown, mode: TurnMode): Promise<void> {
    let status: "completed" | "failed" | "interrupted" = "completed";
    let error: TurnError | null = null;
    const done = this.options.activity.begin();
    try {
      await runTurn(
        {
          threadId: turn.threadId,
          turnId: turn.id,
          settings: thread.history.settings,
          outputSchema,
          history: thread.history.modelItems(),
          input: turn,
          signal: turn.controller.signal,
          emit: turn.emit,
          ask: turn.ask,
          client: turn.client,
          dynamicTools: thread.history.identity.dynamicTools ?? [],
          sessionApprovals: thread.sessionApprovals,
          mode,
          contextTokens: thread.history.contextTokens,
          newItemId: () => this.options.ids.uuid("item"),
        },
        { ...this.options.agent, config: this.options.config.current },
      );
    } catch (failure) {
      if (turn.controller.signal.aborted || failure instanceof TurnCancelled) {
        status = "interrupted";
      } else {
        status = "failed";
        error = turnError(failure);
        if (!(failure instanceof ModelError)) this.options.logger.error({ err: failure, threadId: turn.threadId, turnId: turn.id }, "turn failed");
      }
    } finally {
      done();
    }
    if (turn.hasEnded) return;
    if (thread.active === turn) thread.active = undefined;
    await this.queueEnd(thread, turn, status, error);
  }

  /**
   * Ends a turn once the thread's previous ending (and `after`, if given) is done; the next turn
   * waits for `thread.ending`, so its notifications never overtake this turn's `turn/completed`.
   */
  private queueEnd(
    thread: LoadedThread<S>,
    turn: ActiveTurn,
    status: "completed" | "failed" | "interrupted",
    error: TurnError | null,
    after: Promise<void> = Promise.resolve(),
  ): Promise<void> {
    thread.ending = Promise.all([thread.ending, after])
      .then(() => this.endTurn(thread, turn, status, error))
      .catch((failure: unknown) => this.options.logger.error({ err: failure, turnId: turn.id }, "could not end a turn"));
    return thread.ending;
  }

  /** Stores how the turn ended and tells subscribers: status, then (if failed) `error`, then `turn/completed`. */
  private async endTurn(
    thread: LoadedThread<S>,
    turn: ActiveTurn,
    status: "completed" | "failed" | "interrupted",
    error: TurnError | null,
  ): Promise<void> {
    let final: Turn | null;
    try {
      final = await turn.end(status, error);
    } catch (failure) {
      // Storage failed; clients still learn the turn is over.
      this.options.logger.error({ err: failure, threadId: turn.threadId, turnId: turn.id }, "could not store the end of a turn");
      const at = this.options.clock.nowMs();
      final = { ...inProgressTurn(turn.id), status, error, startedAt: Math.floor(turn.startedAtMs / 1000), completedAt: Math.floor(at / 1000), durationMs: at - turn.startedAtMs };
    }
    if (!final) return;
    const { threadId } = turn;
    await this.chargeGoal(thread, turn, final);
    if (!thread.ephemeral) {
      this.options.emit(thread.subscribers, "thread/readState/changed", { threadId, readState: thread.readState.turnEnded(turn.id) });
    }
    thread.status = status === "failed" ? { type: "systemError" } : { type: "idle" };
    this.options.emit(thread.subscribers, "thread/status/changed", { threadId, status: thread.status });
    if (status === "failed" && error) this.options.emit(thread.subscribers, "error", { threadId, turnId: turn.id, error, willRetry: false });
    this.options.emit(thread.subscribers, "turn/completed", { threadId, turn: final });
    for (const requestId of turn.withdrawn) this.options.requests.resolved(requestId, thread.subscribers, threadId);
    this.scheduleUnload(threadId, thread);
  }

  private turnHost(thread: LoadedThread<S>): TurnHost {
    return {
      clock: this.options.clock,
      notify: (method, params) => this.options.emit(thread.subscribers, method, params),
      write: (record, durable) => this.write(thread, record, durable),
      usageRecorded: () => this.replayTokenUsage(thread, thread.subscribers),
      request: (method, params) => this.options.requests.open(thread.subscribers, method, params),
      withdraw: (id) => this.options.requests.withdraw(id, "the turn ended"),
      resolved: (id) => this.options.requests.resolved(id, thread.subscribers, thread.history.identity.id),
      forget: (id) => this.options.requests.forget(id),
      setWaiting: (flags) => {
        if (thread.status.type !== "active") return;
        thread.status = { type: "active", activeFlags: [...flags] };
        this.options.emit(thread.subscribers, "thread/status/changed", { threadId: thread.history.identity.id, status: thread.status });
      },
    };
  }

  /** Sends the thread's token usage (after each model response, and on resume). */
  private replayTokenUsage(thread: LoadedThread<S>, recipients: Iterable<S>): void {
    const usage = thread.history.tokenUsage;
    if (!usage) return;
    const window = this.options.config.current.model_context_window ?? DEFAULT_CONTEXT_WINDOW;
    this.options.emit(recipients, "thread/tokenUsage/updated", {
      threadId: thread.history.identity.id,
      turnId: usage.turnId,
      tokenUsage: { total: usage.total, last: usage.last, modelContextWindow: Math.floor((window * USABLE_CONTEXT_PERCENT) / 100) },
    });
  }

  /** The input of a `turn/start` or `turn/steer`, checked, as it waits to enter a turn; -32600 for bad input. */
  private pendingInput(params: Pick<TurnStartParams, "input" | "clientUserMessageId">): PendingInput {
    const problem = checkTurnInput(params.input);
    if (problem) throw invalidRequest(problem);
    return { id: this.options.ids.uuid("item"), clientId: params.clientUserMessageId ?? null, content: params.input };
  }

  /** `thread/turns/list`: a page of a thread's turns, newest first by default. */
  async turns(params: ThreadTurnsListParams): Promise<{ data: Turn[]; nextCursor: string | null }> {
    checkThreadId(params.threadId);
    const history = await this.history(params.threadId, threadNotFound);
    return turnsPage(history.turns, params);
  }

  /** Charges an active goal with what the turn used, so a spent budget stops the next turn. */
  private async chargeGoal(thread: LoadedThread<S>, turn: ActiveTurn, final: Turn): Promise<void> {
    const goal = thread.history.goal;
    if (goal?.status !== "active") return;
    const at = this.options.clock.nowMs();
    const charged = chargeTurn(goal, turn.tokensUsed, Math.round((final.durationMs ?? 0) / 1000), Math.floor(at / 1000));
    await this.write(thread, { type: "goal", at, goal: charged }, true);
    this.options.emit(thread.subscribers, "thread/goal/updated", { threadId: turn.threadId, turnId: turn.id, goal: charged });
  }

  /** The loaded thread with this id, if it is loaded. */
  find(threadId: string): LoadedThread<S> | undefined {
    return this.loaded.get(threadId);
  }

  /** `thread/readState/update`: the client has seen the loaded thread up to now. */
  markRead(threadId: string, expectedRevision: string | null | undefined): { readState: ThreadReadState } {
    checkThreadId(threadId);
    const thread = this.loaded.get(threadId);
    if (!thread) throw threadNotFound(threadId);
    const readState = thread.readState.markRead(threadId, expectedRevision);
    this.options.emit(thread.subscribers, "thread/readState/changed", { threadId, readState });
    return { readState };
  }

  /** `thread/loaded/list`: ids of the threads loaded in this process. */
  loadedIds(cursor: string | null | undefined, limit: number | null | undefined): { data: string[]; nextCursor: string | null } {
    const ids = [...this.loaded.keys()].sort();
    const start = cursor ? decodeOffsetCursor(cursor) : 0;
    const size = limit && limit > 0 ? limit : ids.length;
    return { data: ids.slice(start, start + size), nextCursor: start + size < ids.length ? encodeOffsetCursor(start + size) : null };
  }

  /** `thread/unsubscribe`: stops notifications to `subscriber`; an idle thread nobody watches unloads later. */
  unsubscribe(threadId: string, subscriber: S): "unsubscribed" | "notSubscribed" | "notLoaded" {
    checkThreadId(threadId);
    const thread = this.loaded.get(threadId);
    if (!thread) return "notLoaded";
    if (!thread.subscribers.delete(subscriber)) return "notSubscribed";
    thread.former.add(subscriber);
    this.scheduleUnload(threadId, thread);
    return "unsubscribed";
  }

  /** A connection went away: drop it everywhere. */
  dropSubscriber(subscriber: S): void {
    for (const [threadId, thread] of this.loaded) {
      thread.former.delete(subscriber);
      if (thread.subscribers.delete(subscriber)) this.scheduleUnload(threadId, thread);
    }
  }

  /** Closes every thread file (fsync) and the index; the server is stopping. */
  async shutdown(): Promise<void> {
    for (const thread of this.loaded.values()) {
      clearTimeout(thread.unloadTimer);
      const turn = thread.active;
      if (!turn) continue;
      thread.active = undefined;
      turn.controller.abort(new TurnInterrupted());
      void this.queueEnd(thread, turn, "interrupted", null);
    }
    await Promise.all([...this.loaded.values()].map((thread) => thread.ending));
    await Promise.all([...this.loaded.values()].map((thread) => thread.writer?.close()));
    this.loaded.clear();
    await this.options.store.flush();
  }

  private async createLoaded(
    history: ThreadHistory,
    record: Extract<ThreadRecord, { type: "thread" }>,
    ephemeral: boolean,
    copied: ThreadRecord[],
  ): Promise<LoadedThread<S>> {
    const thread = loadedThread<S>(history, ephemeral, null, null);
    if (!ephemeral) {
      // The thread is durable once its last record is: the creation itself, or the last copied one.
      const { path, writer } = await this.options.store.create(record, copied.length === 0);
      thread.path = path;
      thread.writer = writer;
      for (const [index, copy] of copied.entries()) await writer.append(copy, index === copied.length - 1);
      await this.options.store.remember(history, path, false);
    }
    this.loaded.set(history.identity.id, thread);
    return thread;
  }

  private async applyOverrides(thread: LoadedThread<S>, params: ThreadResumeParams): Promise<void> {
    await this.applySettings(thread, overrideSettings(thread.history.settings, this.options.config.current, params, this.options.serverCwd));
  }

  /** Stores the settings that differ from the thread's current ones, if any. */
  private async applySettings(thread: LoadedThread<S>, next: ThreadSettings): Promise<void> {
    const changed = (Object.keys(next) as Array<keyof ThreadSettings>).filter(
      (key) => JSON.stringify(next[key]) !== JSON.stringify(thread.history.settings[key]),
    );
    if (changed.length === 0) return;
    const settings = Object.fromEntries(changed.map((key) => [key, next[key]]));
    await this.write(thread, { type: "settings", at: this.options.clock.nowMs(), settings }, true);
  }

  /**
   * Appends a record to a loaded thread (and its file), or to a stored thread's file. Returns who
   * to tell: the subscribers of a loaded thread; the requester for a thread nobody has loaded.
   */
  /** Appends a record to a loaded or stored thread; resolves with who should hear of it (its subscribers, else the requester). */
  async appendTo(threadId: string, record: ThreadRecord, requester: S | undefined): Promise<Set<S>> {
    const thread = this.loaded.get(threadId);
    if (thread) {
      await this.write(thread, record, true);
      return new Set(thread.subscribers);
    }
    const stored = await this.options.store.read(threadId);
    if (!stored) throw noRolloutFound(threadId);
    const writer = await ThreadFileWriter.open(stored.summary.path, stored.intactBytes);
    try {
      await writer.append(record, true);
    } finally {
      await writer.close();
    }
    stored.history.apply(record);
    await this.options.store.remember(stored.history, stored.summary.path, stored.summary.archived);
    return new Set(requester ? [requester] : []);
  }

  private async write(thread: LoadedThread<S>, record: ThreadRecord, durable: boolean): Promise<void> {
    const preview = thread.history.preview;
    thread.history.apply(record);
    if (!thread.writer || !thread.path) return;
    await thread.writer.append(record, durable);
    // The index changes with metadata and turn boundaries, not with every item or delta of a turn.
    const indexed = record.type !== "item" && record.type !== "model" && record.type !== "usage";
    if (indexed || thread.history.preview !== preview) await this.options.store.remember(thread.history, thread.path, false);
  }

  private subscribe(thread: LoadedThread<S>, subscriber: S): void {
    clearTimeout(thread.unloadTimer);
    thread.unloadTimer = undefined;
    thread.former.delete(subscriber);
    thread.subscribers.add(subscriber);
  }

  private scheduleUnload(threadId: string, thread: LoadedThread<S>): void {
    if (thread.subscribers.size > 0 || thread.active) return;
    clearTimeout(thread.unloadTimer);
    thread.unloadTimer = setTimeout(() => void this.unload(threadId, thread, true), this.options.unloadDelayMs);
    thread.unloadTimer.unref();
  }

  /** Unloads a thread (closing its file); `announceClose`: tell its subscribers with `thread/closed`. */
  async unload(threadId: string, thread: LoadedThread<S>, announceClose: boolean): Promise<void> {
    if (this.loaded.get(threadId) !== thread) return;
    clearTimeout(thread.unloadTimer);
    this.loaded.delete(threadId);
    await thread.writer?.close();
    const told = new Set([...thread.subscribers, ...thread.former]);
    thread.status = { type: "notLoaded" };
    this.options.emit(told, "thread/status/changed", { threadId, status: thread.status });
    if (announceClose) this.options.emit(told, "thread/closed", { threadId });
  }

  /** The history of a loaded thread, or of a stored one read from disk; `missing` says how an unknown id fails. */
  async history(threadId: string, missing: (id: string) => Error): Promise<ThreadHistory> {
    const thread = this.loaded.get(threadId);
    if (thread) return thread.history;
    const stored = await this.options.store.read(threadId);
    if (!stored) throw missing(threadId);
    return stored.history;
  }

  private sessionResponse(thread: LoadedThread<S>, includeTurns: boolean): ThreadSessionResponse {
    const { settings } = thread.history;
    return {
      thread: this.toThread(thread, includeTurns),
      model: settings.model,
      modelProvider: settings.modelProvider,
      serviceTier: settings.serviceTier ?? null,
      cwd: settings.cwd,
      approvalPolicy: settings.approvalPolicy,
      approvalsReviewer: settings.approvalsReviewer,
      sandbox: settings.sandbox,
      reasoningEffort: settings.reasoningEffort ?? null,
    };
  }

  /** The wire view of a loaded thread. */
  toThread(thread: LoadedThread<S>, includeTurns: boolean): Thread {
    const summary = summarize(thread.history, thread.path ?? "", false);
    const wire = storedThread(summary, includeTurns ? thread.history.wireTurns() : [], thread.status);
    return { ...wire, ephemeral: thread.ephemeral, path: thread.path };
  }
}
