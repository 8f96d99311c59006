import type { ThreadGoal } from "../protocol/goalMethods.js";
import type { ThreadItem } from "../protocol/items.js";
import type { GitInfo, ThreadReadState } from "../protocol/thread.js";
import type { Turn, TurnError, TurnStatus } from "../protocol/turn.js";
import { estimateTokens, type ConversationItem, type TurnSettings } from "../agent/index.js";
import type { ThreadIdentity, ThreadRecord } from "./records.js";

/** A turn as stored: its items in order and how it ended. Times are Unix ms. */
export interface StoredTurn {
  readonly id: string;
  readonly startedAtMs: number;
  items: ThreadItem[];
  status: TurnStatus;
  error?: TurnError | null;
  completedAtMs?: number;
}

/** Everything a thread file says, folded from its records in order. */
export class ThreadHistory {
  settings: TurnSettings;
  name: string | null = null;
  gitInfo: GitInfo | null = null;
  preview = "";
  updatedAtMs: number;
  readonly turns: StoredTurn[] = [];
  /** What the model has seen and said, by turn, replayed in full on every request. */
  readonly modelEntries: Array<{ readonly turnId: string; readonly items: readonly ConversationItem[] }> = [];
  /** Token usage: the last model response and the running total over the thread. */
  tokenUsage: { last: TokenUsage; total: TokenUsage; turnId: string } | null = null;
  /** The thread's goal, if it has one. */
  goal: ThreadGoal | null = null;
  /** The size of the context at the last model call, or after the last compaction (what auto-compaction checks). */
  contextTokens: number | null = null;
  /** The turn whose compaction replaced the model-visible history before it, if any. */
  private compactedTurn: string | null = null;
  /** Unread tracking: the first turn that ended since the user last read the thread, and the changes so far. */
  private firstUnread: string | null = null;
  private readRevision = 0;

  constructor(
    readonly identity: ThreadIdentity,
    settings: TurnSettings,
    createdAtMs: number,
  ) {
    this.settings = settings;
    this.updatedAtMs = createdAtMs;
  }

  /**
   * The records that rebuild this thread up to and including turn `lastTurnId` (all turns when
   * null) in a fork: its name, and each turn with its items and model output; a turn still in
   * progress is copied as interrupted. Null when `lastTurnId` is not a turn of this thread.
   */
  recordsForFork(lastTurnId: string | null, at: number): ThreadRecord[] | null {
    const cut = lastTurnId ? this.turns.findIndex((turn) => turn.id === lastTurnId) : this.turns.length - 1;
    if (lastTurnId && cut === -1) return null;
    const copied: ThreadRecord[] = [];
    if (this.name !== null) copied.push({ type: "name", at, name: this.name });
    for (const turn of this.turns.slice(0, cut + 1)) {
      copied.push({ type: "turnStarted", at: turn.startedAtMs, turnId: turn.id });
      for (const item of turn.items) copied.push({ type: "item", at: turn.startedAtMs, turnId: turn.id, item });
      for (const entry of this.modelEntries.filter((model) => model.turnId === turn.id)) {
        copied.push({ type: "model", at: turn.startedAtMs, turnId: turn.id, items: [...entry.items] });
      }
      const status = turn.status === "inProgress" ? "interrupted" : turn.status;
      copied.push({ type: "turnCompleted", at: turn.completedAtMs ?? at, turnId: turn.id, status, error: turn.error ?? null });
    }
    // As Codex: a fork starts with nothing unread.
    if (copied.some((record) => record.type === "turnCompleted")) copied.push({ type: "read", at });
    return copied;
  }

  /** Applies one record, as it is written or read back. */
  apply(record: ThreadRecord): void {
    this.updatedAtMs = Math.max(this.updatedAtMs, record.at);
    switch (record.type) {
      case "thread":
        break;
      case "settings":
        this.settings = { ...this.settings, ...record.settings };
        break;
      case "name":
        this.name = record.name;
        break;
      case "gitInfo":
        this.gitInfo = record.gitInfo;
        break;
      case "turnStarted":
        this.turns.push({ id: record.turnId, startedAtMs: record.at, items: [], status: "inProgress" });
        break;
      case "item": {
        const turn = this.turn(record.turnId);
        if (!turn) break;
        const index = turn.items.findIndex((item) => item.id === record.item.id);
        if (index === -1) turn.items.push(record.item);
        else turn.items[index] = record.item;
        if (!this.preview && record.item.type === "userMessage") this.preview = previewOf(record.item);
        break;
      }
      case "model":
        this.modelEntries.push({ turnId: record.turnId, items: record.items });
        break;
      case "goal":
        this.goal = record.goal;
        break;
      case "reverted": {
        const index = this.turns.findIndex((turn) => turn.id === record.beforeTurnId);
        if (index === -1) break;
        const gone = new Set(this.turns.splice(index).map((turn) => turn.id));
        if (this.firstUnread !== null && gone.has(this.firstUnread)) this.firstUnread = null;
        const kept = this.modelEntries.filter((entry) => !gone.has(entry.turnId));
        this.modelEntries.splice(0, this.modelEntries.length, ...kept);
        this.contextTokens = null;
        break;
      }
      case "compacted":
        this.compactedTurn = record.turnId;
        this.modelEntries.splice(0, this.modelEntries.length, { turnId: record.turnId, items: record.items });
        this.contextTokens = estimateTokens(record.items);
        break;
      case "usage": {
        const total = this.tokenUsage ? addUsage(this.tokenUsage.total, record.usage) : record.usage;
        this.tokenUsage = { last: record.usage, total, turnId: record.turnId };
        this.contextTokens = record.usage.totalTokens;
        break;
      }
      case "turnCompleted": {
        const turn = this.turn(record.turnId);
        if (!turn) break;
        turn.status = record.status;
        turn.error = record.error;
        turn.completedAtMs = record.at;
        this.firstUnread ??= turn.id;
        this.readRevision += 1;
        break;
      }
      case "read":
        this.firstUnread = null;
        this.readRevision += 1;
        break;
    }
  }

  /** Unread tracking as clients see it: the first turn that ended since the last read, if any. */
  readState(): ThreadReadState {
    return { firstUnread: this.firstUnread === null ? null : { type: "turn", turnId: this.firstUnread }, revision: String(this.readRevision) };
  }

  /** A turn by id, searched from the end: records almost always belong to the last turn (reading a file stays linear). */
  private turn(id: string): StoredTurn | undefined {
    return this.turns.findLast((turn) => turn.id === id);
  }

  /** The model-visible history, in order. */
  /** Why the history cannot be reverted to before `turnId` (unknown turn, or a compaction at or after it), or null. */
  revertProblem(turnId: string): string | null {
    const index = this.turns.findIndex((turn) => turn.id === turnId);
    if (index === -1) return `turn ${turnId} is not a turn of thread ${this.identity.id}`;
    const kept = new Set(this.turns.slice(0, index).map((turn) => turn.id));
    // A compaction replaced everything before it with a summary, kept as that turn's entry.
    if (this.compactedTurn !== null && !kept.has(this.compactedTurn)) {
      return `the history before turn ${this.compactedTurn} was compacted into a summary; it can be reverted to no earlier than after that turn`;
    }
    return null;
  }

  modelItems(): ConversationItem[] {
    return this.modelEntries.flatMap((entry) => entry.items);
  }

  /** The wire view of the stored turns, each with all its items. */
  wireTurns(): Turn[] {
    return this.turns.map(toWireTurn);
  }
}

/**
 * Folds a thread file's records, in order, into its history as they are read (the reader shares
 * the event loop). The first record must be the `thread` record; when it is not, the rest is still
 * taken (so every bad line is reported as it is read) and {@link finish} throws.
 */
export class ThreadHistoryBuilder {
  private history: ThreadHistory | undefined;
  private startedBadly = false;

  /** Folds in the next record. */
  add(record: ThreadRecord): void {
    if (this.history) this.history.apply(record);
    else if (this.startedBadly) return;
    else if (record.type === "thread") this.history = new ThreadHistory(record.identity, record.settings, record.at);
    else this.startedBadly = true;
  }

  /** The history of every record added; throws when the first was not the `thread` record. */
  finish(): ThreadHistory {
    const history = this.history;
    if (!history) throw new Error("a thread file must start with a thread record");
    // A turn still in progress in a file was cut short by a crash or kill: it ended there.
    for (const turn of history.turns) if (turn.status === "inProgress") turn.status = "interrupted";
    return history;
  }
}

/** Renders a stored turn for the wire (times in seconds, duration in ms). */
export function toWireTurn(turn: StoredTurn): Turn {
  return {
    id: turn.id,
    rootTurnId: turn.id,
    items: turn.items,
    itemsView: "full",
    status: turn.status,
    error: turn.error ?? null,
    startedAt: Math.floor(turn.startedAtMs / 1000),
    completedAt: turn.completedAtMs === undefined ? null : Math.floor(turn.completedAtMs / 1000),
    durationMs: turn.completedAtMs === undefined ? null : turn.completedAtMs - turn.startedAtMs,
  };
}

/** A token usage breakdown as stored and sent. */
export interface TokenUsage {
  readonly totalTokens: number;
  readonly inputTokens: number;
  readonly cachedInputTokens: number;
  readonly cacheWriteInputTokens?: number;
  readonly outputTokens: number;
  readonly reasoningOutputTokens: number;
}

function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  return {
    totalTokens: a.totalTokens + b.totalTokens,
    inputTokens: a.inputTokens + b.inputTokens,
    cachedInputTokens: a.cachedInputTokens + b.cachedInputTokens,
    cacheWriteInputTokens: (a.cacheWriteInputTokens ?? 0) + (b.cacheWriteInputTokens ?? 0),
    outputTokens: a.outputTokens + b.outputTokens,
    reasoningOutputTokens: a.reasoningOutputTokens + b.reasoningOutputTokens,
  };
}

function previewOf(item: Extract<ThreadItem, { type: "userMessage" }>): string {
  for (const input of item.content) if (input.type === "text") return input.text;
  return "";
}
