import type { ApprovalDecision, ApprovalRequest, ClientAsker, ConversationItem, PendingInput, TurnEvent } from "../agent/index.js";
import type { ThreadItem } from "../protocol/items.js";
import type {
  ServerNotificationMethod,
  ServerNotificationParams,
  ServerRequestMethod,
  ServerRequestParams,
  ServerRequestResult,
} from "../protocol/methods.js";
import type { ThreadActiveFlag } from "../protocol/thread.js";
import type { Turn, TurnError, TurnStatus } from "../protocol/turn.js";
import type { Clock } from "../runtime/clock.js";
import { OpenItems } from "./openItems.js";
import type { ThreadRecord } from "./records.js";

/** A turn kind that takes no steered input, as Codex names it in `activeTurnNotSteerable`. */
export type NonSteerableTurnKind = "review" | "compact";

/** What an active turn needs from its thread: a way to notify subscribers and to store records. */
export interface TurnHost {
  /** Returns a promise while a subscriber is behind on its output (see ThreadEmitter). */
  notify<M extends ServerNotificationMethod>(method: M, params: ServerNotificationParams<M>): Promise<void> | undefined;
  write(record: ThreadRecord, durable: boolean): Promise<void>;
  /** Notifies `thread/tokenUsage/updated` after a usage record was written. */
  usageRecorded(turnId: string): void;
  /** Sends a request to the thread's subscribers; the answer is the first response. */
  request<M extends ServerRequestMethod>(method: M, params: ServerRequestParams<M>): OpenRequest<M>;
  /** Withdraws an unanswered request. */
  withdraw(id: number): void;
  /** The request is over: every subscriber it was sent to gets `serverRequest/resolved` under its own id for it. */
  resolved(id: number): void;
  /** The request is over and is announced to nobody (Codex never resolves `item/tool/call`). */
  forget(id: number): void;
  /** What the thread waits on the client for now (`activeFlags`; empty when nothing). */
  setWaiting(flags: readonly ThreadActiveFlag[]): void;
  readonly clock: Clock;
}

/** A request sent to the client and the promise of its validated answer. */
export interface OpenRequest<M extends ServerRequestMethod> {
  readonly id: number;
  readonly answer: Promise<ServerRequestResult<M>>;
}

/** A request still waiting for its answer, as it can be replayed to a client that resumes the thread. */
export interface PendingRequest {
  readonly id: number;
  readonly method: ServerRequestMethod;
  readonly params: ServerRequestParams<ServerRequestMethod>;
}

const ABORTED_NOTE =
  "<turn_aborted>\nThe user interrupted the previous turn on purpose. Anything it was doing was stopped; " +
  "do not assume it finished.\n</turn_aborted>";

/**
 * A running turn, thread side: relays the runner's events to subscribers and storage, queues
 * steered input, and ends exactly once. Items left open when it ends are completed first, so every
 * `item/started` has its `item/completed` before `turn/completed`.
 */
export class ActiveTurn {
  readonly controller = new AbortController();
  private readonly queue: PendingInput[] = [];
  /** Aborted while the queue holds non-empty input (see {@link arrivals}). */
  private arrival = new AbortController();
  private readonly open = new OpenItems();
  private lastAgentMessage: ThreadItem | null = null;
  private closed = false;
  /** Why steering is refused while the turn runs: a review or a compaction takes no input. */
  private notSteerableKind: NonSteerableTurnKind | null = null;
  private ended = false;
  private readonly requests = new Map<number, PendingRequest>();
  /** Commands whose approval was declined or cancelled: the thread waits on approval until their item completes. */
  private readonly answeredUntilCompleted = new Set<string>();
  private whenStopped: Promise<void> | undefined;
  /** Tokens the turn's model calls used so far (what a thread goal is charged). */
  tokensUsed = 0;
  /** Requests withdrawn when the turn ended; `serverRequest/resolved` for them follows `turn/completed`. */
  withdrawn: number[] = [];

  constructor(
    readonly id: string,
    readonly threadId: string,
    readonly startedAtMs: number,
    private readonly host: TurnHost,
  ) {}

  /** Resolves once the turn is stopped: a wait on a slow subscriber must not outlast an interrupt. */
  private stopped(): Promise<void> {
    this.whenStopped ??= new Promise((resolve) => {
      if (this.controller.signal.aborted) resolve();
      else this.controller.signal.addEventListener("abort", () => resolve(), { once: true });
    });
    return this.whenStopped;
  }

  /** True once the turn has ended (or started ending): later runner events are dropped. */
  get hasEnded(): boolean {
    return this.ended;
  }

  /** Whether input queued now would enter the turn. */
  get acceptsInput(): boolean {
    return !this.closed && !this.ended;
  }

  /** The kind of turn that refuses steering (review, compact), or null. */
  get notSteerable(): NonSteerableTurnKind | null {
    return this.notSteerableKind;
  }

  /** Queues input for the next model call (non-empty input cuts the one in flight); false when the turn takes no more input. */
  enqueue(input: PendingInput): boolean {
    if (!this.acceptsInput) return false;
    this.queue.push(input);
    if (input.content.length > 0) this.arrival.abort();
    return true;
  }

  /** Takes no more input: the turn is being interrupted, or is a kind (`notSteerable`) that never takes any. */
  closeInput(notSteerable?: NonSteerableTurnKind): void {
    this.closed = true;
    if (notSteerable) this.notSteerableKind = notSteerable;
  }

  /** Input queued since the last call. */
  take(): PendingInput[] {
    if (this.arrival.signal.aborted) this.arrival = new AbortController();
    return this.queue.splice(0);
  }

  /** Aborts once non-empty input is queued, until the next take. */
  arrivals(): AbortSignal {
    return this.arrival.signal;
  }

  /** Input queued since the last call; if there is none, the turn stops taking input. */
  takeOrClose(): PendingInput[] {
    const taken = this.take();
    if (taken.length === 0) this.closed = true;
    return taken;
  }

  /**
   * The runner's emitter: notifications go out at once, events that store something return a
   * promise. So does a notification a subscriber is behind on: the runner then stops reading the
   * model's stream until that output drains (or the turn is stopped), instead of the server
   * queueing every delta for a slow reader.
   */
  readonly emit = (event: TurnEvent): Promise<void> | void => {
    if (this.ended) return;
    switch (event.type) {
      case "notify": {
        this.open.track(event);
        const behind = this.host.notify(event.method, event.params as never);
        return behind && Promise.race([behind, this.stopped()]);
      }
      case "itemStarted": {
        const startedAtMs = this.host.clock.nowMs();
        const item: ThreadItem = { ...event.item, startedAtMs, completedAtMs: null };
        this.open.add(item);
        this.host.notify("item/started", { threadId: this.threadId, turnId: this.id, item, startedAtMs });
        return;
      }
      case "dropOpenItems":
        // Never completed, stored or replayed: Codex sends no `item/completed` for them either.
        for (const id of event.ids) this.open.delete(id);
        return;
      case "reportUsage":
        this.host.usageRecorded(this.id);
        return;
      default:
        return this.store(event);
    }
  };

  private async store(event: Exclude<TurnEvent, { type: "notify" | "itemStarted" | "dropOpenItems" | "reportUsage" }>): Promise<void> {
    switch (event.type) {
      case "itemCompleted":
        await this.complete(event.item);
        return;
      case "completeOpenItems":
        for (const item of this.open.current()) await this.complete(item);
        return;
      case "history":
        await this.host.write({ type: "model", at: this.host.clock.nowMs(), turnId: this.id, items: [...event.items] }, false);
        return;
      case "compacted":
        await this.host.write({ type: "compacted", at: this.host.clock.nowMs(), turnId: this.id, items: [...event.items] }, true);
        this.host.notify("thread/compacted", { threadId: this.threadId, turnId: this.id });
        return;
      case "usage": {
        this.tokensUsed += event.usage.totalTokens;
        const usage = { ...event.usage, cacheWriteInputTokens: 0 };
        await this.host.write({ type: "usage", at: this.host.clock.nowMs(), turnId: this.id, usage }, false);
        this.host.usageRecorded(this.id);
        return;
      }
    }
  }

  /** Items started and not yet completed, as a client joining mid-turn needs them. */
  openItems(): ThreadItem[] {
    return this.open.current();
  }

  /** Requests still waiting for an answer. */
  pendingRequests(): PendingRequest[] {
    return [...this.requests.values()];
  }

  /** Asks the client to approve a tool's action; resolves to the decision (`failed` when none came). */
  readonly ask = async (request: ApprovalRequest): Promise<ApprovalDecision> => {
    // Built when the request is sent: a command's item starts just before, and its start time is the request's.
    const base = () => ({
      threadId: this.threadId,
      turnId: this.id,
      itemId: request.itemId,
      startedAtMs: this.open.startedAtMs(request.itemId) ?? this.host.clock.nowMs(),
      reason: request.reason,
    });
    const answer =
      request.kind === "command"
        ? await this.requestClient("item/commandExecution/requestApproval", () => ({
            ...base(),
            kind: "command" as const,
            environmentId: "local",
            command: request.command,
            cwd: request.cwd,
            commandActions: [...request.commandActions],
            proposedExecpolicyAmendment: request.proposedAmendment ? [...request.proposedAmendment] : null,
            // What Codex offers; `acceptForSession` and `decline` are still taken as answers.
            availableDecisions: [
              "accept",
              ...(request.proposedAmendment ? [{ acceptWithExecpolicyAmendment: { execpolicy_amendment: [...request.proposedAmendment] } }] : []),
              "cancel",
            ],
          }), request.announce)
        : await this.requestClient("item/fileChange/requestApproval", () => ({ ...base(), grantRoot: request.grantRoot }));
    return answer ? toDecision(answer.decision) : "failed";
  };

  /** The client's side of client-declared tools and of questions to the user. */
  readonly client: ClientAsker = {
    callTool: (params) => this.requestClient("item/tool/call", () => ({ threadId: this.threadId, turnId: this.id, ...params })),
    askUser: (params) => this.requestClient("item/tool/requestUserInput", () => ({ threadId: this.threadId, turnId: this.id, ...params })),
  };

  /**
   * Sends a request to the thread's clients and waits for the first valid answer; null when none
   * came (an error answer, nobody to ask, or the turn ended). `serverRequest/resolved` follows an
   * answer, except for `item/tool/call`, which Codex never resolves that way.
   */
  private async requestClient<M extends ServerRequestMethod>(
    method: M,
    paramsWhenSent: () => ServerRequestParams<M>,
    beforeSending?: () => Promise<void>,
  ): Promise<ServerRequestResult<M> | null> {
    if (this.ended) return null;
    // Codex's order: the thread says it is waiting, (a command's item starts,) then the request goes out.
    this.updateWaiting(this.waitingFlags(), this.waitingFlags(method));
    if (beforeSending) {
      await beforeSending();
      if (this.ended) return null;
    }
    const params = paramsWhenSent();
    const open = this.host.request(method, params);
    this.requests.set(open.id, { id: open.id, method, params: params as ServerRequestParams<ServerRequestMethod> });
    let answer: ServerRequestResult<M> | null;
    try {
      answer = await open.answer;
    } catch {
      answer = null;
    }
    if (this.requests.has(open.id) && !this.ended) {
      const before = this.waitingFlags();
      // As Codex: a declined or cancelled command's item completes before the thread stops waiting.
      const decision = (answer as { decision?: unknown } | null)?.decision;
      if (method === "item/commandExecution/requestApproval" && (decision === "decline" || decision === "cancel")) {
        this.answeredUntilCompleted.add((params as { itemId: string }).itemId);
      }
      this.requests.delete(open.id);
      if (method !== "item/tool/call") this.host.resolved(open.id);
      else this.host.forget(open.id);
      this.updateWaiting(before, this.waitingFlags());
    }
    return answer;
  }

  /** What the thread is waiting on, from the requests still open (and one about to be sent). */
  private waitingFlags(sending?: ServerRequestMethod): ThreadActiveFlag[] {
    const methods = new Set([...this.requests.values()].map((request) => request.method));
    if (sending) methods.add(sending);
    const flags: ThreadActiveFlag[] = [];
    const approving = methods.has("item/commandExecution/requestApproval") || methods.has("item/fileChange/requestApproval");
    if (approving || this.answeredUntilCompleted.size > 0) flags.push("waitingOnApproval");
    if (methods.has("item/tool/requestUserInput")) flags.push("waitingOnUserInput");
    return flags;
  }

  private updateWaiting(before: readonly ThreadActiveFlag[], after: readonly ThreadActiveFlag[]): void {
    if (after.join() !== before.join()) this.host.setWaiting(after);
  }

  /**
   * Ends the turn once: completes open items, stores the outcome and returns the Turn for
   * `turn/completed`; null when it had already ended.
   */
  async end(status: Exclude<TurnStatus, "inProgress">, error: TurnError | null): Promise<Turn | null> {
    if (this.ended) return null;
    this.ended = true;
    this.closed = true;
    const awaitingApproval = new Set(
      [...this.requests.values()].filter((request) => request.method.endsWith("/requestApproval")).map((request) => (request.params as { itemId: string }).itemId),
    );
    this.withdrawn = [...this.requests.keys()];
    this.requests.clear();
    for (const id of this.withdrawn) this.host.withdraw(id);
    // A review cut short ends as aborted, and the item it was about never ran.
    for (const review of this.open.openReviews()) {
      if (review.targetItemId) awaitingApproval.add(review.targetItemId);
      this.host.notify("item/autoApprovalReview/completed", { ...review, review: { status: "aborted" }, completedAtMs: this.host.clock.nowMs(), decisionSource: "agent" });
    }
    const partial: ConversationItem[] = [];
    // Every open item completes even when storing one fails; the first failure is raised after.
    let failure: unknown = null;
    const complete = (item: ThreadItem) => this.complete(item).catch((error: unknown) => void (failure ??= error));
    for (const item of this.open.current()) {
      if (item.type === "agentMessage" && item.text) partial.push({ type: "message", role: "assistant", content: [{ type: "output_text", text: item.text }] });
      // A tool cut short did not finish: never ran if it waited for approval, failed if it was running.
      const status = awaitingApproval.has(item.id) ? "declined" : "failed";
      if (item.type === "commandExecution") await complete({ ...item, status, exitCode: item.exitCode ?? (status === "failed" ? -1 : null) });
      else if (item.type === "fileChange") await complete({ ...item, status });
      else if (item.type === "dynamicToolCall") await complete({ ...item, status: "failed", success: false });
      else if (item.type === "mcpToolCall") await complete({ ...item, status: "failed", error: { message: "the turn ended before the tool answered" } });
      else await complete(item);
    }
    if (failure !== null) throw failure;
    const at = this.host.clock.nowMs();
    if (status === "interrupted") partial.push({ type: "message", role: "user", content: [{ type: "input_text", text: ABORTED_NOTE }] });
    if (partial.length > 0) await this.host.write({ type: "model", at, turnId: this.id, items: partial }, false);
    await this.host.write({ type: "turnCompleted", at, turnId: this.id, status, error }, true);
    const items = status === "completed" && this.lastAgentMessage ? [this.lastAgentMessage] : [];
    return {
      id: this.id,
      rootTurnId: this.id,
      items,
      itemsView: status === "completed" ? "summary" : "notLoaded",
      status,
      error,
      startedAt: Math.floor(this.startedAtMs / 1000),
      completedAt: Math.floor(at / 1000),
      durationMs: at - this.startedAtMs,
    };
  }

  private async complete(item: ThreadItem): Promise<void> {
    const completedAtMs = this.host.clock.nowMs();
    const startedAtMs = this.open.startedAtMs(item.id) ?? completedAtMs;
    this.open.delete(item.id);
    const done: ThreadItem = { ...item, startedAtMs, completedAtMs };
    if (done.type === "agentMessage") this.lastAgentMessage = done;
    try {
      await this.host.write({ type: "item", at: completedAtMs, turnId: this.id, item: done }, false);
    } finally {
      // Clients see every started item complete, even when storing it failed (a full disk).
      this.host.notify("item/completed", { threadId: this.threadId, turnId: this.id, item: done, completedAtMs, contentTokenCount: null });
      if (this.answeredUntilCompleted.has(item.id) && !this.ended) {
        const before = this.waitingFlags();
        this.answeredUntilCompleted.delete(item.id);
        this.updateWaiting(before, this.waitingFlags());
      }
    }
  }
}

/** Reduces a client's decision to what tools act on; an execpolicy amendment counts as "for the session". */
function toDecision(decision: unknown): ApprovalDecision {
  if (decision === "accept" || decision === "acceptForSession" || decision === "decline" || decision === "cancel") return decision;
  if (typeof decision === "object" && decision !== null) {
    if ("acceptWithExecpolicyAmendment" in decision) {
      const amendment = (decision as { acceptWithExecpolicyAmendment: { execpolicy_amendment: string[] } }).acceptWithExecpolicyAmendment;
      return { allowPrefix: amendment.execpolicy_amendment };
    }
    if ("applyNetworkPolicyAmendment" in decision) return "accept";
  }
  return "failed";
}
