/**
 * The registry and loader of loaded threads: creates (start, fork), loads (resume), subscribes and
 * unloads them. What one loaded thread does (its turns) is the LoadedThread's; reads and edits of
 * loaded-or-stored threads are ThreadEdits'.
 */
import { AGENT_STEPS, AgentWarmUp, effectiveSettings, threadSettingsRequest, type EditorFiles } from "../agent/index.js";
import { invalidRequest, ioFailure } from "../protocol/errors.js";
import type { ThreadReadState } from "../protocol/thread.js";
import type {
  ThreadForkParams,
  ThreadResumeParams,
  ThreadResumeResponse,
  ThreadSessionResponse,
  ThreadStartParams,
  ThreadTurnsListParams,
} from "../protocol/threadMethods.js";
import type { Turn } from "../protocol/turn.js";
import { SERVER_VERSION } from "../runtime/version.js";
import { describeStorageFault } from "../runtime/systemErrors.js";
import { FULL_HISTORY_NOTICES } from "./fullHistoryNotice.js";
import { noRolloutFound, threadNotFound } from "./errors.js";
import { LoadedThread } from "./loadedThread.js";
import type { ThreadServices } from "./threadServices.js";
import { turnsPage, type HistoryPage } from "./historyPaging.js";
import { offsetPage } from "./paging.js";
import type { ThreadRecord } from "./records.js";
import { ThreadEdits, type LoadedThreads } from "./threadEdits.js";
import { ThreadAttachments } from "./threadAttachments.js";
import type { AttachmentStore } from "./attachmentStore.js";
import type { Outcome } from "./threadEvents.js";
import { ThreadFileWriter } from "./threadFile.js";
import { ThreadHistory } from "./threadHistory.js";
import { resumeResponse } from "./wireViews.js";

/** What the ThreadManager needs: what its threads need, and how long an unwatched idle thread stays. */
export interface ThreadManagerOptions<S> extends Omit<ThreadServices<S>, "editorFiles"> {
  /** The thread attachments (thread_attachments.json). */
  readonly attachments: AttachmentStore;
  /** How long an idle thread nobody is subscribed to stays loaded (ms). */
  readonly unloadDelayMs: number;
}

type CreationRecord = Extract<ThreadRecord, { type: "thread" }>;

/**
 * The only door to thread state: every loaded thread is reached through it, and every change is
 * written to the thread's file as it happens. Handlers call it and never touch storage.
 */
export class ThreadManager<S extends object> implements LoadedThreads<S> {
  private readonly loaded = new Map<string, LoadedThread<S>>();
  /** Why the last load of a stored thread failed (a read-only home), until one succeeds. */
  private readonly loadFailures = new Map<string, string>();
  /** Reads and edits of loaded-or-stored threads (name, metadata, goals, archive, read, list). */
  readonly edits: ThreadEdits<S>;
  /** `thread/attachment/*` of loaded-or-stored threads. */
  readonly attachments: ThreadAttachments<S>;
  private readonly warmUp: AgentWarmUp;
  private readonly editorFiles = new Map<string, EditorFiles>();
  /** What every loaded thread gets: the options, and the editors' files. */
  private readonly services: ThreadServices<S>;

  constructor(private readonly options: ThreadManagerOptions<S>) {
    this.services = { ...options, editorFiles: this.editorFiles };
    this.edits = new ThreadEdits(this, { ...options, serverCwd: options.host.cwd });
    this.attachments = new ThreadAttachments(this, options);
    // Last, the login profile: its first command should not wait for it either (see LoginShell).
    const prepareShell = () => options.agent.loginShell.prepare(options.config.current, options.agent.env);
    this.warmUp = new AgentWarmUp(options.activity, [...AGENT_STEPS, prepareShell]);
  }

  /** Gives a thread's turns its client's editor files (an ACP editor's `fs`): patches read its buffers and write through it. */
  useEditorFiles(threadId: string, files: EditorFiles): void {
    this.editorFiles.set(threadId, files);
  }

  /** `thread/start`: creates a thread, stores it at once (unless ephemeral) and subscribes `subscriber`. */
  async start(params: ThreadStartParams, subscriber: S, originator: string | null = null): Promise<Outcome<ThreadSessionResponse>> {
    const { clock, ids, config, host } = this.options;
    const settings = effectiveSettings(config.current, null, threadSettingsRequest(params), host);
    const id = ids.uuid("thread");
    const at = clock.nowMs();
    const record: CreationRecord = {
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
    const thread = await this.create(record, [], params.ephemeral ?? false);
    const sources = await thread.instructionSources();
    thread.subscribers.add(subscriber);
    return { result: thread.sessionResponse(false, sources), after: () => this.announceStarted(thread) };
  }

  /** `thread/resume`: loads a stored thread (or joins the loaded one), applies overrides, subscribes. */
  async resume(params: ThreadResumeParams, subscriber: S): Promise<Outcome<ThreadResumeResponse>> {
    let thread = this.loaded.get(params.threadId);
    const cold = !thread;
    if (!thread) {
      const stored = await this.options.store.read(params.threadId);
      if (!stored || stored.summary.archived) throw noRolloutFound(params.threadId);
      const writer = await ThreadFileWriter.open(stored.summary.path, stored.intactBytes).catch((error: unknown) => {
        // Remembered, so that requests about the thread say why it is not loaded rather than "not found".
        const storage = describeStorageFault(error);
        if (storage) this.loadFailures.set(params.threadId, storage);
        throw error;
      });
      this.loadFailures.delete(params.threadId);
      thread = this.register(stored.history, false, { path: stored.summary.path, writer });
    }
    // Codex's order on a cold resume: the notice, then the status, then the response.
    if (!params.excludeTurns) this.noticeFullHistory(subscriber, "load");
    if (cold) this.options.emit([subscriber], "thread/status/changed", { threadId: params.threadId, status: thread.status });
    const changed = await thread.applySettings(threadSettingsRequest(params));
    const sources = await thread.instructionSources();
    thread.subscribe(subscriber);
    const loaded = thread;
    return {
      result: resumeResponse(thread.sessionResponse(!params.excludeTurns, sources), thread.history, params.initialTurnsPage),
      // Not with `after`, when serializing a large answer starts: the warm-up's module loads and
      // the login profile's run landed between its slices (stalls of up to 130 ms in a
      // 50,000-item resume).
      afterWritten: () => this.warmUp.request(),
      after: () => {
        // The resuming client learns them from its response; the others from this.
        if (changed) loaded.announceSettings([...loaded.subscribers].filter((other) => other !== subscriber));
        loaded.catchUp(subscriber);
      },
    };
  }

  /** `thread/fork`: a new thread with a copy of the source's history (up to `lastTurnId`). */
  async fork(params: ThreadForkParams, subscriber: S): Promise<Outcome<ThreadSessionResponse>> {
    const source = await this.history(params.threadId, noRolloutFound);
    const { clock, ids, config, host } = this.options;
    const settings = effectiveSettings(config.current, source.settings, threadSettingsRequest(params), host);
    const id = ids.uuid("thread");
    const at = clock.nowMs();
    const record: CreationRecord = {
      type: "thread",
      at,
      identity: { ...source.identity, id, sessionId: id, createdAtMs: at, forkedFromId: source.identity.id, threadSource: params.threadSource ?? source.identity.threadSource },
      settings,
    };
    const copied = source.recordsForFork(params.lastTurnId ?? null, at);
    if (!copied) throw invalidRequest(`turn ${params.lastTurnId} is not a turn of thread ${params.threadId}`);
    const thread = await this.create(record, copied, params.ephemeral ?? false);
    const sources = await thread.instructionSources();
    thread.subscribers.add(subscriber);
    if (!params.excludeTurns) this.noticeFullHistory(subscriber, "load");
    return { result: thread.sessionResponse(!params.excludeTurns, sources), after: () => this.announceStarted(thread) };
  }

  /** Codex's `deprecationNotice`, before the response, for a request that returns a thread's whole history. */
  noticeFullHistory(subscriber: S, request: keyof typeof FULL_HISTORY_NOTICES): void {
    this.options.emit([subscriber], "deprecationNotice", { summary: FULL_HISTORY_NOTICES[request], details: null });
  }

  /** The loaded thread with this id, or -32600 `thread not found` (turns run only on loaded threads). */
  get(threadId: string): LoadedThread<S> {
    const thread = this.loaded.get(threadId);
    if (thread) return thread;
    const failure = this.loadFailures.get(threadId);
    if (failure) throw ioFailure(`thread ${threadId} is stored but could not be loaded: ${failure}`, { threadId });
    throw threadNotFound(threadId);
  }

  /** The loaded thread with this id, if it is loaded. */
  find(threadId: string): LoadedThread<S> | undefined {
    return this.loaded.get(threadId);
  }

  /** `thread/turns/list`: a page of a thread's turns, newest first by default. */
  async turns(params: ThreadTurnsListParams): Promise<HistoryPage<Turn>> {
    const history = await this.history(params.threadId, threadNotFound);
    return turnsPage(history.turns, params);
  }

  /** `thread/readState/update`: the client has seen the loaded thread up to now. */
  async markRead(threadId: string, expectedRevision: string | null | undefined): Promise<{ readState: ThreadReadState }> {
    const thread = this.get(threadId);
    const readState = await thread.markRead(expectedRevision);
    this.options.emit(thread.subscribers, "thread/readState/changed", { threadId, readState });
    return { readState };
  }

  /** `thread/loaded/list`: ids of the threads loaded in this process. */
  loadedIds(cursor: string | null | undefined, limit: number | null | undefined): { data: string[]; nextCursor: string | null } {
    return offsetPage([...this.loaded.keys()].sort(), cursor, limit);
  }

  /** `thread/unsubscribe`: stops notifications to `subscriber`; an idle thread nobody watches unloads later. */
  unsubscribe(threadId: string, subscriber: S): "unsubscribed" | "notSubscribed" | "notLoaded" {
    const thread = this.loaded.get(threadId);
    if (!thread) return "notLoaded";
    if (!thread.subscribers.delete(subscriber)) return "notSubscribed";
    thread.former.add(subscriber);
    this.scheduleUnload(thread);
    return "unsubscribed";
  }

  /** A connection went away: drop it everywhere. */
  dropSubscriber(subscriber: S): void {
    for (const thread of this.loaded.values()) {
      thread.former.delete(subscriber);
      if (thread.subscribers.delete(subscriber)) this.scheduleUnload(thread);
    }
  }

  /** Interrupts running turns, waits for them to end, closes every thread file (fsync) and the index; the server is stopping. */
  async shutdown(): Promise<void> {
    const threads = [...this.loaded.values()];
    await Promise.all(threads.map((thread) => thread.stop()));
    await Promise.all(threads.map((thread) => thread.close()));
    this.loaded.clear();
    await this.options.store.flush();
  }

  /** Appends a record to a loaded or stored thread; resolves with who should hear of it (its subscribers, else the requester). */
  async appendTo(threadId: string, record: ThreadRecord, requester: S | undefined): Promise<Set<S>> {
    const thread = this.loaded.get(threadId);
    if (thread) {
      await thread.write(record, true);
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

  /** Unloads a thread (closing its file); `announceClose`: tell its subscribers with `thread/closed`. */
  async unload(thread: LoadedThread<S>, announceClose: boolean): Promise<void> {
    const threadId = thread.id;
    if (this.loaded.get(threadId) !== thread) return;
    clearTimeout(thread.unloadTimer);
    this.loaded.delete(threadId);
    await thread.close();
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

  /** Creates a thread from its first record and any records copied from a fork's source, stored unless ephemeral. */
  private async create(record: CreationRecord, copied: ThreadRecord[], ephemeral: boolean): Promise<LoadedThread<S>> {
    const history = new ThreadHistory(record.identity, record.settings, record.at);
    for (const copy of copied) history.apply(copy);
    if (ephemeral) return this.register(history, true, null);
    // The thread is durable once its last record is: the creation itself, or the last copied one.
    const { path, writer } = await this.options.store.create(record, copied.length === 0);
    for (const [index, copy] of copied.entries()) await writer.append(copy, index === copied.length - 1);
    await this.options.store.remember(history, path, false);
    return this.register(history, false, { path, writer });
  }

  private register(history: ThreadHistory, ephemeral: boolean, file: { path: string; writer: ThreadFileWriter } | null): LoadedThread<S> {
    const thread: LoadedThread<S> = new LoadedThread<S>(history, ephemeral, file, this.services, () => this.scheduleUnload(thread));
    this.loaded.set(thread.id, thread);
    return thread;
  }

  private announceStarted(thread: LoadedThread<S>): void {
    this.options.emit(thread.subscribers, "thread/started", { thread: thread.toThread(false) });
    this.warmUp.request();
  }

  private scheduleUnload(thread: LoadedThread<S>): void {
    if (thread.subscribers.size > 0 || thread.running) return;
    clearTimeout(thread.unloadTimer);
    thread.unloadTimer = setTimeout(() => void this.unload(thread, true), this.options.unloadDelayMs);
    thread.unloadTimer.unref();
  }
}
