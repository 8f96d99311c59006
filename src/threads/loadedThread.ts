/**
 * One loaded thread as a unit: its history and open file, status, subscribers, what the user
 * approved and has read, the running turn, the input waiting for it, and the chain its turns end
 * on. It runs its turns (start, steer, interrupt, compact, review) and keeps their ordering: a
 * response goes out before the notifications that follow it, and a turn's `turn/completed` before
 * anything of the next turn. The ThreadManager keeps one per loaded thread.
 */
import {
  ApprovalMemory,
  ExecSessions,
  loadProjectInstructions,
  sandboxedInstructionReader,
  checkTurnInput,
  DEFAULT_CONTEXT_WINDOW,
  effectiveSettings,
  ModelError,
  reviewRequest,
  ReviewTargetError,
  loadTurnRunner,
  TurnCancelled,
  turnSettingsRequest,
  type PendingInput,
  type ReviewRequest,
  type SettingsRequest,
  type TurnMode,
  type TurnSettings,
} from "../agent/index.js";
import { invalidRequest, rpcError } from "../protocol/errors.js";
import { ErrorCode } from "../protocol/jsonrpc.js";
import type { ThreadItem } from "../protocol/items.js";
import type { ReviewStartParams } from "../protocol/reviewMethods.js";
import type { Thread, ThreadReadState, ThreadStatus } from "../protocol/thread.js";
import type { ThreadSessionResponse, ThreadShellCommandParams } from "../protocol/threadMethods.js";
import type { Turn, TurnError } from "../protocol/turn.js";
import type { TurnStartParams, TurnSteerParams } from "../protocol/turnMethods.js";
import { ActiveTurn, type TurnHost } from "./activeTurn.js";
import { chargeTurn, checkGoalAllowsTurn } from "./goals.js";
import type { ThreadRecord } from "./records.js";
import type { Outcome } from "./threadEvents.js";
import type { ThreadFileWriter } from "./threadFile.js";
import type { ThreadServices } from "./threadServices.js";
import type { ThreadHistory } from "./threadHistory.js";
import { summarize } from "./threadStore.js";
import { inProgressTurn, storedThread, threadSettingsView, turnError } from "./wireViews.js";

/** Codex counts 95 % of the context window as usable (its `effective_context_window_percent`). */
const USABLE_CONTEXT_PERCENT = 95;

type EndStatus = "completed" | "failed" | "interrupted";

/** Thrown into a turn's model stream and tools when it is interrupted. */
class TurnInterrupted extends Error {
  constructor() {
    super("interrupted by the client");
    this.name = "TurnInterrupted";
  }
}

/** A loaded thread: its state in memory and its running turn. */
export class LoadedThread<S> {
  status: ThreadStatus = { type: "idle" };
  readonly subscribers = new Set<S>();
  /** Connections that unsubscribed: told when the thread unloads, as Codex does. */
  readonly former = new Set<S>();
  unloadTimer?: NodeJS.Timeout;
  /** What the user accepted for the rest of this thread's life in memory (`acceptForSession`). */
  readonly sessionApprovals = new ApprovalMemory();
  /** Which finished turns the user has not seen yet (kept in memory only). */
  /** The thread's running commands, background terminals included (killed when the thread unloads). */
  readonly terminals = new ExecSessions();
  /** The running turn, until it starts ending. */
  private active: ActiveTurn | undefined;
  /** Settles when the last turn has fully ended (its `turn/completed` sent); the next turn waits for it. */
  private ending: Promise<void> = Promise.resolve();

  constructor(
    readonly history: ThreadHistory,
    readonly ephemeral: boolean,
    /** The thread's file, open for appending; null while ephemeral. */
    private readonly file: { readonly path: string; readonly writer: ThreadFileWriter } | null,
    private readonly services: ThreadServices<S>,
    /** Called when the thread might now be unloaded (a turn ended). */
    private readonly idle: () => void,
  ) {}

  /** The thread's id. */
  get id(): string {
    return this.history.identity.id;
  }

  /** The path of the thread's file (null while ephemeral). */
  get path(): string | null {
    return this.file?.path ?? null;
  }

  /** Whether a turn is running (a loaded thread with one never unloads). */
  get running(): boolean {
    return this.active !== undefined;
  }

  /** The input of a `turn/start` or `turn/steer`, checked, as it waits to enter a turn; -32600 for bad input. */
  private pendingInput(params: Pick<TurnStartParams, "input" | "clientUserMessageId">): PendingInput {
    const problem = checkTurnInput(params.input);
    if (problem) throw invalidRequest(problem);
    return { id: this.services.ids.uuid("item"), clientId: params.clientUserMessageId ?? null, content: params.input };
  }

  /**
   * `turn/start`: stores the turn's start and returns it in progress; it runs once the response is
   * out. With a turn already running, the input is steered into it (cutting its model call in
   * flight) and that turn is returned, as Codex does.
   */
  async startTurn(params: TurnStartParams): Promise<Outcome<{ turn: Turn }>> {
    const pending = this.pendingInput(params);
    const running = this.active;
    // Codex refuses to steer nothing into a running turn, with its core error's name.
    if (running?.acceptsInput && pending.content.length === 0) throw rpcError(ErrorCode.InternalError, "failed to submit turn input: EmptyInput");
    if (running?.enqueue(pending)) return { result: { turn: inProgressTurn(running.id) } };
    await this.ending;
    checkGoalAllowsTurn(this.history.goal);
    const changed = await this.applySettings(turnSettingsRequest(params));
    const turn = await this.beginTurn();
    turn.enqueue(pending);
    return {
      result: { turn: inProgressTurn(turn.id) },
      after: () => {
        if (changed) this.announceSettings(this.subscribers);
        this.announceAndRun(turn, params.outputSchema, { kind: "regular" });
      },
    };
  }

  /**
   * `thread/readState/update`: the user has seen everything, stored so it outlives the process;
   * refused when the client acted on a revision that is no longer current.
   */
  async markRead(expectedRevision: string | null | undefined): Promise<ThreadReadState> {
    const { revision } = this.history.readState();
    if (expectedRevision != null && expectedRevision !== revision) {
      throw invalidRequest(`read state of thread ${this.id} is at revision ${revision}, not ${expectedRevision}; read it again and retry`);
    }
    await this.write({ type: "read", at: this.services.clock.nowMs() }, false);
    return this.history.readState();
  }

  /** `thread/compact/start`: a turn that only summarizes the history (no input, not steerable), once any running turn has ended. */
  async compact(): Promise<Outcome<Record<string, never>>> {
    await this.ending;
    if (this.active) throw invalidRequest(`thread ${this.id} is running a turn; compact it once the turn ends`);
    const turn = await this.beginTurn();
    turn.closeInput("compact");
    return { result: {}, after: () => this.announceAndRun(turn, null, { kind: "compact" }) };
  }

  /** `thread/shellCommand`: the user's own command, run as a turn of its own with no model call, once any running turn has ended. */
  async shellCommand(params: ThreadShellCommandParams): Promise<Outcome<Record<string, never>>> {
    await this.ending;
    if (this.active) throw invalidRequest(`thread ${this.id} is running a turn; run the shell command once it ends`);
    const turn = await this.beginTurn();
    turn.closeInput();
    const shell = { command: params.command, timeoutMs: params.timeoutMs ?? null };
    return { result: {}, after: () => this.announceAndRun(turn, null, { kind: "userShell", shell }) };
  }

  /** `review/start`: a review turn on this thread over the changes git shows for the target. */
  async review(params: ReviewStartParams): Promise<Outcome<{ turn: Turn; reviewThreadId: string }>> {
    await this.ending;
    if (this.active) throw invalidRequest(`thread ${this.id} is running a turn; start the review once it ends`);
    let review: ReviewRequest;
    try {
      const { sandbox, env } = this.services.agent;
      review = await reviewRequest(params.target, this.history.settings.cwd, {
        sandbox,
        policy: this.history.settings.sandbox,
        env,
        bwrapPath: this.services.config.current.bwrap_path,
      });
    } catch (error) {
      if (error instanceof ReviewTargetError) throw invalidRequest(error.message);
      throw error;
    }
    const turn = await this.beginTurn();
    turn.closeInput("review");
    const message: ThreadItem = { type: "userMessage", id: turn.id, clientId: null, content: [{ type: "text", text: review.label, text_elements: [] }] };
    return {
      result: { turn: { ...inProgressTurn(turn.id), items: [message] }, reviewThreadId: this.id },
      after: () => this.announceAndRun(turn, null, { kind: "review", review }),
    };
  }

  /** `turn/steer`: queues input for the running turn, cutting its model call in flight; Codex's checks in Codex's order. */
  steer(params: TurnSteerParams): { turnId: string } {
    if (params.input.length === 0) throw invalidRequest("input must not be empty");
    const turn = this.active;
    if (!turn) throw invalidRequest("no active turn to steer");
    if (turn.id !== params.expectedTurnId) {
      throw invalidRequest(`expected active turn id \`${params.expectedTurnId}\` but found \`${turn.id}\``);
    }
    const kind = turn.notSteerable;
    if (kind) {
      const message = `cannot steer a ${kind} turn`;
      // The data is the TurnError Codex serializes (`activeTurnNotSteerable` is in its CodexErrorInfo).
      throw invalidRequest(message, { message, codexErrorInfo: { activeTurnNotSteerable: { turnKind: kind } }, additionalDetails: null });
    }
    if (!turn.enqueue(this.pendingInput(params))) throw invalidRequest("no active turn to steer");
    return { turnId: turn.id };
  }

  /**
   * `turn/interrupt`: the turn takes no more input at once; once the response is out, its model
   * stream and tools are aborted and it completes `interrupted` without waiting for them.
   */
  interrupt(turnId: string): Outcome<Record<string, never>> {
    const turn = this.active;
    if (!turn) throw invalidRequest("no active turn to interrupt");
    if (turn.id !== turnId) throw invalidRequest(`expected active turn id ${turnId} but found ${turn.id}`);
    turn.closeInput();
    this.active = undefined;
    let responded!: () => void;
    void this.queueEnd(turn, "interrupted", null, new Promise<void>((resolve) => (responded = resolve)));
    return {
      result: {},
      after: () => {
        turn.controller.abort(new TurnInterrupted());
        responded();
      },
    };
  }

  /** The server is stopping: interrupts the running turn; settles once every turn has ended. */
  async stop(): Promise<void> {
    clearTimeout(this.unloadTimer);
    const turn = this.active;
    if (turn) {
      this.active = undefined;
      turn.controller.abort(new TurnInterrupted());
      void this.queueEnd(turn, "interrupted", null);
    }
    await this.ending;
  }

  /** Kills the thread's commands and closes its file (fsync): the thread unloads, or the server stops. */
  async close(): Promise<void> {
    this.terminals.killAll();
    await this.file?.writer.close();
  }

  /** Adds a subscriber (and keeps the thread loaded while it has one). */
  subscribe(subscriber: S): void {
    clearTimeout(this.unloadTimer);
    this.unloadTimer = undefined;
    this.former.delete(subscriber);
    this.subscribers.add(subscriber);
  }

  /**
   * What a client that resumes the thread learns after the response: token usage, the goal, and,
   * mid-turn, the items in flight (before their deltas) and the requests still waiting.
   */
  catchUp(subscriber: S): void {
    this.replayTokenUsage([subscriber]);
    // As Codex: the goal as it stands, or that there is none.
    const goal = this.history.goal;
    if (goal) this.services.emit([subscriber], "thread/goal/updated", { threadId: this.id, turnId: null, goal });
    else this.services.emit([subscriber], "thread/goal/cleared", { threadId: this.id });
    const active = this.active;
    if (!active) return;
    for (const item of active.openItems()) {
      this.services.emit([subscriber], "item/started", { threadId: this.id, turnId: active.id, item, startedAtMs: item.startedAtMs ?? 0 });
    }
    for (const pending of active.pendingRequests()) this.services.requests.replay(pending.id, pending.method, pending.params, subscriber);
  }

  /** Stores the settings a request changes (those that differ from the thread's current ones), if any; true when some did. */
  async applySettings(request: SettingsRequest): Promise<boolean> {
    const current = this.history.settings;
    const next = effectiveSettings(this.services.config.current, current, request, this.services.host);
    const changed = (Object.keys(next) as Array<keyof TurnSettings>).filter((key) => JSON.stringify(next[key]) !== JSON.stringify(current[key]));
    if (changed.length === 0) return false;
    const settings = Object.fromEntries(changed.map((key) => [key, next[key]]));
    await this.write({ type: "settings", at: this.services.clock.nowMs(), settings }, true);
    return true;
  }

  /** `thread/settings/updated`: the settings the thread's turns now run with. */
  announceSettings(recipients: Iterable<S>): void {
    this.services.emit(recipients, "thread/settings/updated", { threadId: this.id, threadSettings: threadSettingsView(this.history.settings) });
  }

  /** Applies a record to the history and appends it to the thread's file (`durable`: fsync). */
  async write(record: ThreadRecord, durable: boolean): Promise<void> {
    const preview = this.history.preview;
    // Written first (append throws at once when the disk refuses): a record not stored does not
    // become part of the history either. Applied before its fsync, so records apply in call order.
    const synced = this.file?.writer.append(record, durable);
    this.history.apply(record);
    if (!this.file) return;
    await synced;
    // The index changes with metadata and turn boundaries, not with every item or delta of a turn.
    const indexed = record.type !== "item" && record.type !== "model" && record.type !== "usage";
    if (indexed || this.history.preview !== preview) await this.services.store.remember(this.history, this.file.path, false);
  }

  /** The instruction files (AGENTS.md) the thread's turns load, as the session response names them. */
  async instructionSources(): Promise<readonly string[]> {
    // Read as its turns read them: sandboxed, only what the sandbox's processes could open (the
    // model may have made AGENTS.md a symlink to a FIFO or device, which opening as root would wake).
    const { sandbox, env, home } = this.services.agent;
    const { cwd } = this.history.settings;
    const sandboxed = sandbox.roots(this.history.settings.sandbox, cwd, env) !== null;
    return (await loadProjectInstructions(cwd, home, sandboxed ? sandboxedInstructionReader(sandbox.masked()) : undefined)).sources;
  }

  /** The response to thread/start, resume and fork; built at once, so no notification can come between it and the state it shows. */
  sessionResponse(includeTurns: boolean, instructionSources: readonly string[]): ThreadSessionResponse {
    const { settings } = this.history;
    return {
      thread: this.toThread(includeTurns),
      model: settings.model,
      modelProvider: settings.modelProvider,
      serviceTier: settings.serviceTier ?? null,
      disabledPluginIds: [],
      cwd: settings.cwd,
      runtimeWorkspaceRoots: [settings.cwd],
      instructionSources: [...instructionSources],
      approvalPolicy: settings.approvalPolicy,
      approvalsReviewer: settings.approvalsReviewer,
      sandbox: settings.sandbox,
      activePermissionProfile: null,
      reasoningEffort: settings.reasoningEffort ?? null,
      // This server has no sub-agents; Codex's default mode spawns them only when asked to.
      multiAgentMode: "explicitRequestOnly",
    };
  }

  /** The wire view of the thread. */
  toThread(includeTurns: boolean): Thread {
    const summary = summarize(this.history, this.path ?? "", false);
    const wire = storedThread(summary, includeTurns ? this.history.wireTurns() : [], this.status, this.services.sections.placement(this.id));
    return { ...wire, ephemeral: this.ephemeral, path: this.path };
  }

  private async beginTurn(): Promise<ActiveTurn> {
    const turnId = this.services.ids.uuid("turn");
    const startedAtMs = this.services.clock.nowMs();
    const turn = new ActiveTurn(turnId, this.id, startedAtMs, this.turnHost());
    this.active = turn;
    clearTimeout(this.unloadTimer);
    try {
      await this.write({ type: "turnStarted", at: startedAtMs, turnId }, true);
    } catch (error) {
      // Not stored, so not started: the next turn/start must find the thread free (a full disk must not wedge it).
      if (this.active === turn) this.active = undefined;
      throw error;
    }
    return turn;
  }

  private announceAndRun(turn: ActiveTurn, outputSchema: unknown, mode: TurnMode): void {
    this.setStatus({ type: "active", activeFlags: [] });
    this.services.emit(this.subscribers, "turn/started", {
      threadId: this.id,
      turn: { ...inProgressTurn(turn.id), startedAt: Math.floor(turn.startedAtMs / 1000) },
    });
    void this.runActiveTurn(turn, outputSchema, mode);
  }

  /** Runs a turn to its end; whatever happens, it ends exactly once with one `turn/completed`. */
  private async runActiveTurn(turn: ActiveTurn, outputSchema: unknown, mode: TurnMode): Promise<void> {
    let status: EndStatus = "completed";
    let error: TurnError | null = null;
    const done = this.services.activity.begin();
    try {
      const { runTurn } = await loadTurnRunner();
      await runTurn(
        {
          threadId: this.id,
          turnId: turn.id,
          settings: this.history.settings,
          outputSchema,
          history: this.history.modelItems(),
          input: turn,
          signal: turn.controller.signal,
          emit: turn.emit,
          ask: turn.ask,
          client: turn.client,
          dynamicTools: this.history.identity.dynamicTools ?? [],
          sessionApprovals: this.sessionApprovals,
          sessions: this.terminals,
          mode,
          contextTokens: this.history.contextTokens,
          newItemId: () => this.services.ids.uuid("item"),
          editorFiles: this.services.editorFiles.get(this.id),
        },
        { ...this.services.agent, config: this.services.config.current, providerEnv: this.services.auth.environment(this.services.agent.env) },
      );
    } catch (failure) {
      if (turn.controller.signal.aborted || failure instanceof TurnCancelled) {
        status = "interrupted";
      } else {
        status = "failed";
        error = turnError(failure);
        if (!(failure instanceof ModelError)) this.services.logger.error({ err: failure, threadId: this.id, turnId: turn.id }, "turn failed");
      }
    } finally {
      done();
    }
    if (turn.hasEnded) return;
    if (this.active === turn) this.active = undefined;
    await this.queueEnd(turn, status, error);
  }

  /**
   * Ends a turn once the thread's previous ending (and `after`, if given) is done; the next turn
   * waits for `ending`, so its notifications never overtake this turn's `turn/completed`.
   */
  private queueEnd(turn: ActiveTurn, status: EndStatus, error: TurnError | null, after: Promise<void> = Promise.resolve()): Promise<void> {
    this.ending = Promise.all([this.ending, after])
      .then(() => this.endTurn(turn, status, error))
      .catch((failure: unknown) => this.services.logger.error({ err: failure, turnId: turn.id }, "could not end a turn"));
    return this.ending;
  }

  /** Stores how the turn ended and tells subscribers: status, then (if failed) `error`, then `turn/completed`. */
  private async endTurn(turn: ActiveTurn, status: EndStatus, error: TurnError | null): Promise<void> {
    const { clock, emit, logger } = this.services;
    let final: Turn | null;
    try {
      final = await turn.end(status, error);
    } catch (failure) {
      // Storage failed; clients still learn the turn is over.
      logger.error({ err: failure, threadId: this.id, turnId: turn.id }, "could not store the end of a turn");
      const at = clock.nowMs();
      final = { ...inProgressTurn(turn.id), status, error, startedAt: Math.floor(turn.startedAtMs / 1000), completedAt: Math.floor(at / 1000), durationMs: at - turn.startedAtMs };
    }
    if (!final) return;
    const threadId = this.id;
    await this.chargeGoal(turn, final);
    if (!this.ephemeral) emit(this.subscribers, "thread/readState/changed", { threadId, readState: this.history.readState() });
    this.setStatus(status === "failed" ? { type: "systemError" } : { type: "idle" });
    if (status === "failed" && error) emit(this.subscribers, "error", { threadId, turnId: turn.id, error, willRetry: false });
    emit(this.subscribers, "turn/completed", { threadId, turn: final });
    for (const requestId of turn.withdrawn) this.services.requests.resolved(requestId, this.subscribers, threadId);
    this.idle();
  }

  /** Charges an active goal with what the turn used, so a spent budget stops the next turn. */
  private async chargeGoal(turn: ActiveTurn, final: Turn): Promise<void> {
    const goal = this.history.goal;
    if (goal?.status !== "active") return;
    const at = this.services.clock.nowMs();
    const charged = chargeTurn(goal, turn.tokensUsed, Math.round((final.durationMs ?? 0) / 1000), Math.floor(at / 1000));
    await this.write({ type: "goal", at, goal: charged }, true);
    this.services.emit(this.subscribers, "thread/goal/updated", { threadId: this.id, turnId: turn.id, goal: charged });
  }

  private setStatus(status: ThreadStatus): void {
    this.status = status;
    this.services.emit(this.subscribers, "thread/status/changed", { threadId: this.id, status });
  }

  private turnHost(): TurnHost {
    const { clock, emit, requests } = this.services;
    return {
      clock,
      notify: (method, params) => emit(this.subscribers, method, params),
      write: (record, durable) => this.write(record, durable),
      usageRecorded: () => this.replayTokenUsage(this.subscribers),
      request: (method, params) => requests.open(this.subscribers, method, params),
      withdraw: (id) => requests.withdraw(id, "the turn ended"),
      resolved: (id) => requests.resolved(id, this.subscribers, this.id),
      forget: (id) => requests.forget(id),
      setWaiting: (flags) => {
        if (this.status.type === "active") this.setStatus({ type: "active", activeFlags: [...flags] });
      },
    };
  }

  /** Sends the thread's token usage (after each model response, and on resume). */
  private replayTokenUsage(recipients: Iterable<S>): void {
    const usage = this.history.tokenUsage;
    if (!usage) return;
    const window = this.services.config.current.model_context_window ?? DEFAULT_CONTEXT_WINDOW;
    this.services.emit(recipients, "thread/tokenUsage/updated", {
      threadId: this.id,
      turnId: usage.turnId,
      tokenUsage: { total: usage.total, last: usage.last, modelContextWindow: Math.floor((window * USABLE_CONTEXT_PERCENT) / 100) },
    });
  }
}
