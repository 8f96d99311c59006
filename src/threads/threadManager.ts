import type { Config } from "../config/schema.js";
import type { ServerNotificationMethod, ServerNotificationParams } from "../protocol/methods.js";
import type { GitInfo, Thread, ThreadStatus } from "../protocol/thread.js";
import type {
  ThreadForkParams,
  ThreadListParams,
  ThreadResumeParams,
  ThreadSessionResponse,
  ThreadStartParams,
  ThreadTurnsListParams,
} from "../protocol/threadMethods.js";
import type { Turn } from "../protocol/turn.js";
import type { Clock } from "../runtime/clock.js";
import type { IdSource } from "../runtime/ids.js";
import type { Logger } from "../runtime/logger.js";
import { SERVER_VERSION } from "../runtime/version.js";
import { noRolloutFound, threadNotFound } from "./errors.js";
import { listThreads, type ThreadPage } from "./listing.js";
import { decodeOffsetCursor, encodeOffsetCursor } from "./paging.js";
import type { ThreadRecord, ThreadSettings } from "./records.js";
import { overrideSettings, resolveSettings } from "./settings.js";
import { ThreadHistory, toWireTurn } from "./threadHistory.js";
import { summarize, type ThreadStore, type ThreadSummary } from "./threadStore.js";
import { ThreadFileWriter } from "./threadFile.js";

/** Sends a notification to some subscribers; the server layer builds and writes it. */
export type ThreadEmitter<S> = <M extends ServerNotificationMethod>(
  recipients: Iterable<S>,
  method: M,
  params: ServerNotificationParams<M>,
) => void;

/** A result plus the notifications that must follow the response to it. */
export interface Outcome<R> {
  readonly result: R;
  readonly after?: () => void;
}

/** What the ThreadManager needs. */
export interface ThreadManagerOptions<S> {
  readonly store: ThreadStore;
  readonly config: Config;
  readonly clock: Clock;
  readonly ids: IdSource;
  readonly logger: Logger;
  readonly emit: ThreadEmitter<S>;
  /** The directory relative `cwd`s resolve against. */
  readonly serverCwd: string;
  /** How long an idle thread nobody is subscribed to stays loaded (ms). */
  readonly unloadDelayMs: number;
}

interface LoadedThread<S> {
  readonly history: ThreadHistory;
  readonly ephemeral: boolean;
  path: string | null;
  writer: ThreadFileWriter | null;
  status: ThreadStatus;
  readonly subscribers: Set<S>;
  /** Connections that unsubscribed: told when the thread unloads, as Codex does. */
  readonly former: Set<S>;
  unloadTimer?: NodeJS.Timeout;
}

/**
 * The only door to thread state: creates, loads, subscribes, lists and unloads threads, and writes
 * every change to the thread's file as it happens. Handlers call it and never touch storage.
 */
export class ThreadManager<S extends object> {
  private readonly loaded = new Map<string, LoadedThread<S>>();

  constructor(private readonly options: ThreadManagerOptions<S>) {}

  /** `thread/start`: creates a thread, stores it at once (unless ephemeral) and subscribes `subscriber`. */
  async start(params: ThreadStartParams, subscriber: S): Promise<Outcome<ThreadSessionResponse>> {
    const { clock, ids, config, serverCwd } = this.options;
    const settings = resolveSettings(config, params, serverCwd);
    const id = ids.uuid();
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
        originator: null,
      },
      settings,
    };
    const thread = await this.createLoaded(new ThreadHistory(record.identity, settings, at), record, params.ephemeral ?? false, []);
    thread.subscribers.add(subscriber);
    return {
      result: this.sessionResponse(thread, false),
      after: () => this.options.emit(thread.subscribers, "thread/started", { thread: this.toThread(thread, false) }),
    };
  }

  /** `thread/resume`: loads a stored thread (or joins the loaded one), applies overrides, subscribes. */
  async resume(params: ThreadResumeParams, subscriber: S): Promise<Outcome<ThreadSessionResponse>> {
    let thread = this.loaded.get(params.threadId);
    if (!thread) {
      const stored = await this.options.store.read(params.threadId);
      if (!stored || stored.summary.archived) throw noRolloutFound(params.threadId);
      thread = {
        history: stored.history,
        ephemeral: false,
        path: stored.summary.path,
        writer: await ThreadFileWriter.open(stored.summary.path, stored.intactBytes),
        status: { type: "idle" },
        subscribers: new Set(),
        former: new Set(),
      };
      this.loaded.set(params.threadId, thread);
      this.options.emit([subscriber], "thread/status/changed", { threadId: params.threadId, status: thread.status });
    }
    await this.applyOverrides(thread, params);
    this.subscribe(thread, subscriber);
    return { result: this.sessionResponse(thread, !params.excludeTurns) };
  }

  /** `thread/fork`: a new thread with a copy of the source's history (up to `lastTurnId`). */
  async fork(params: ThreadForkParams, subscriber: S): Promise<Outcome<ThreadSessionResponse>> {
    const source = await this.history(params.threadId, noRolloutFound);
    const { clock, ids, config, serverCwd } = this.options;
    const settings = overrideSettings(source.settings, config, params, serverCwd);
    const id = ids.uuid();
    const at = clock.nowMs();
    const record: Extract<ThreadRecord, { type: "thread" }> = {
      type: "thread",
      at,
      identity: { ...source.identity, id, sessionId: id, createdAtMs: at, forkedFromId: source.identity.id, threadSource: params.threadSource ?? source.identity.threadSource },
      settings,
    };
    const copied: ThreadRecord[] = [];
    if (source.name !== null) copied.push({ type: "name", at, name: source.name });
    const cut = params.lastTurnId ? source.turns.findIndex((turn) => turn.id === params.lastTurnId) : source.turns.length - 1;
    for (const turn of source.turns.slice(0, cut + 1)) {
      copied.push({ type: "turnStarted", at: turn.startedAtMs, turnId: turn.id });
      for (const item of turn.items) copied.push({ type: "item", at: turn.startedAtMs, turnId: turn.id, item });
      const status = turn.status === "inProgress" ? "interrupted" : turn.status;
      copied.push({ type: "turnCompleted", at: turn.completedAtMs ?? at, turnId: turn.id, status, error: turn.error ?? null });
    }
    const history = new ThreadHistory(record.identity, settings, at);
    for (const copy of copied) history.apply(copy);
    const thread = await this.createLoaded(history, record, params.ephemeral ?? false, copied);
    thread.subscribers.add(subscriber);
    return {
      result: this.sessionResponse(thread, !params.excludeTurns),
      after: () => this.options.emit(thread.subscribers, "thread/started", { thread: this.toThread(thread, false) }),
    };
  }

  /** `thread/read`: a loaded or stored thread, without loading it. */
  async read(threadId: string, includeTurns: boolean): Promise<Thread> {
    const thread = this.loaded.get(threadId);
    if (thread) return this.toThread(thread, includeTurns);
    const stored = await this.options.store.read(threadId);
    if (!stored) throw threadNotFound(threadId);
    return storedThread(stored.summary, includeTurns ? stored.history.wireTurns() : []);
  }

  /** `thread/list`: stored threads, filtered, sorted and paged through the index. */
  list(params: ThreadListParams): ThreadPage {
    return listThreads(this.options.store.summaries(), params, (summary) => {
      const loaded = this.loaded.get(summary.id);
      return storedThread(summary, [], loaded?.status);
    }, this.options.serverCwd);
  }

  /** `thread/turns/list`: a page of a thread's turns, newest first by default. */
  async turns(params: ThreadTurnsListParams): Promise<{ data: Turn[]; nextCursor: string | null }> {
    const history = await this.history(params.threadId, threadNotFound);
    const ordered = params.sortDirection === "asc" ? [...history.turns] : [...history.turns].reverse();
    const start = params.cursor ? decodeOffsetCursor(params.cursor) : 0;
    const limit = params.limit && params.limit > 0 ? params.limit : 25;
    const view = params.itemsView ?? "summary";
    const page = ordered.slice(start, start + limit).map((turn) => {
      const wire = toWireTurn(turn);
      if (view === "full") return wire;
      if (view === "notLoaded") return { ...wire, items: [], itemsView: "notLoaded" as const };
      const firstUser = turn.items.find((item) => item.type === "userMessage");
      const lastAgent = [...turn.items].reverse().find((item) => item.type === "agentMessage");
      return { ...wire, items: [firstUser, lastAgent].filter((item) => item !== undefined), itemsView: "summary" as const };
    });
    return { data: page, nextCursor: start + limit < ordered.length ? encodeOffsetCursor(start + limit) : null };
  }

  /** `thread/archive`: unloads the thread and moves its file to `archived_sessions/`. */
  async archive(threadId: string, requester: S): Promise<Outcome<Record<string, never>>> {
    const summary = this.options.store.summary(threadId);
    if (!summary || summary.archived) throw noRolloutFound(threadId);
    const thread = this.loaded.get(threadId);
    const told = thread ? new Set(thread.subscribers) : new Set([requester]);
    if (thread) await this.unload(threadId, thread, false);
    await this.options.store.move(summary, true);
    return { result: {}, after: () => this.options.emit(told, "thread/archived", { threadId }) };
  }

  /** `thread/unarchive`: moves the file back; the thread stays unloaded. */
  async unarchive(threadId: string, requester: S): Promise<Outcome<{ thread: Thread }>> {
    const summary = this.options.store.summary(threadId);
    if (!summary || !summary.archived) throw noRolloutFound(threadId);
    const thread = storedThread(await this.options.store.move(summary, false), []);
    return { result: { thread }, after: () => this.options.emit([requester], "thread/unarchived", { threadId }) };
  }

  /** `thread/name/set`: names a loaded or stored thread. */
  async setName(threadId: string, name: string, requester: S): Promise<Outcome<Record<string, never>>> {
    const told = await this.appendTo(threadId, { type: "name", at: this.options.clock.nowMs(), name }, requester);
    return { result: {}, after: () => this.options.emit(told, "thread/name/updated", { threadId, threadName: name }) };
  }

  /** `thread/metadata/update`: records git details of a loaded or stored thread. */
  async updateMetadata(threadId: string, gitInfo: GitInfo | null): Promise<Thread> {
    await this.appendTo(threadId, { type: "gitInfo", at: this.options.clock.nowMs(), gitInfo }, undefined);
    return this.read(threadId, false);
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
    for (const thread of this.loaded.values()) clearTimeout(thread.unloadTimer);
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
    const thread: LoadedThread<S> = {
      history,
      ephemeral,
      path: null,
      writer: null,
      status: { type: "idle" },
      subscribers: new Set(),
      former: new Set(),
    };
    if (!ephemeral) {
      const { path, writer } = await this.options.store.create(record);
      thread.path = path;
      thread.writer = writer;
      for (const [index, copy] of copied.entries()) await writer.append(copy, index === copied.length - 1);
      await this.options.store.remember(history, path, false);
    }
    this.loaded.set(history.identity.id, thread);
    return thread;
  }

  private async applyOverrides(thread: LoadedThread<S>, params: ThreadResumeParams): Promise<void> {
    const { config, serverCwd, clock } = this.options;
    const next = overrideSettings(thread.history.settings, config, params, serverCwd);
    const changed = (Object.keys(next) as Array<keyof ThreadSettings>).filter(
      (key) => JSON.stringify(next[key]) !== JSON.stringify(thread.history.settings[key]),
    );
    if (changed.length === 0) return;
    const settings = Object.fromEntries(changed.map((key) => [key, next[key]]));
    await this.write(thread, { type: "settings", at: clock.nowMs(), settings }, true);
  }

  /**
   * Appends a record to a loaded thread (and its file), or to a stored thread's file. Returns who
   * to tell: the subscribers of a loaded thread; the requester for a thread nobody has loaded.
   */
  private async appendTo(threadId: string, record: ThreadRecord, requester: S | undefined): Promise<Set<S>> {
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
    thread.history.apply(record);
    if (!thread.writer || !thread.path) return;
    await thread.writer.append(record, durable);
    await this.options.store.remember(thread.history, thread.path, false);
  }

  private subscribe(thread: LoadedThread<S>, subscriber: S): void {
    clearTimeout(thread.unloadTimer);
    thread.unloadTimer = undefined;
    thread.former.delete(subscriber);
    thread.subscribers.add(subscriber);
  }

  private scheduleUnload(threadId: string, thread: LoadedThread<S>): void {
    if (thread.subscribers.size > 0 || thread.status.type === "active") return;
    clearTimeout(thread.unloadTimer);
    thread.unloadTimer = setTimeout(() => void this.unload(threadId, thread, true), this.options.unloadDelayMs);
    thread.unloadTimer.unref();
  }

  private async unload(threadId: string, thread: LoadedThread<S>, announceClose: boolean): Promise<void> {
    if (this.loaded.get(threadId) !== thread) return;
    clearTimeout(thread.unloadTimer);
    this.loaded.delete(threadId);
    await thread.writer?.close();
    const told = new Set([...thread.subscribers, ...thread.former]);
    thread.status = { type: "notLoaded" };
    this.options.emit(told, "thread/status/changed", { threadId, status: thread.status });
    if (announceClose) this.options.emit(told, "thread/closed", { threadId });
  }

  private async history(threadId: string, missing: (id: string) => Error): Promise<ThreadHistory> {
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

  private toThread(thread: LoadedThread<S>, includeTurns: boolean): Thread {
    const summary = summarize(thread.history, thread.path ?? "", false);
    const wire = storedThread(summary, includeTurns ? thread.history.wireTurns() : [], thread.status);
    return { ...wire, ephemeral: thread.ephemeral, path: thread.path };
  }
}

/** The wire Thread of an index entry. */
function storedThread(summary: ThreadSummary, turns: Turn[], status: ThreadStatus = { type: "notLoaded" }): Thread {
  return {
    id: summary.id,
    sessionId: summary.sessionId,
    forkedFromId: summary.forkedFromId ?? null,
    preview: summary.preview,
    ephemeral: false,
    modelProvider: summary.modelProvider,
    model: summary.model,
    reasoningEffort: summary.reasoningEffort ?? null,
    createdAt: Math.floor(summary.createdAtMs / 1000),
    updatedAt: Math.floor(summary.updatedAtMs / 1000),
    status,
    path: summary.path,
    cwd: summary.cwd,
    cliVersion: summary.cliVersion,
    originator: summary.originator ?? null,
    source: summary.source as Thread["source"],
    threadSource: summary.threadSource ?? null,
    gitInfo: (summary.gitInfo as Thread["gitInfo"]) ?? null,
    name: summary.name,
    turns,
    projectId: null,
  };
}
