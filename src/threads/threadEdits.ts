import type { GitInfo, Thread, ThreadReadState } from "../protocol/thread.js";
import type { ThreadListParams } from "../protocol/threadMethods.js";
import type { ThreadGoal, ThreadGoalSetParams } from "../protocol/goalMethods.js";
import type { Clock } from "../runtime/clock.js";
import type { ConversationItem } from "../agent/index.js";
import { invalidRequest } from "../protocol/errors.js";
import { noRolloutFound, threadNotFound } from "./errors.js";
import { setGoal } from "./goals.js";
import { historyHeads, type HistoryHeads } from "./historyPaging.js";
import { listThreads, type ThreadPage } from "./listing.js";
import type { LoadedThread } from "./loadedThread.js";
import type { ThreadRecord } from "./records.js";
import type { Outcome, ThreadEmitter } from "./threadEvents.js";
import type { ThreadHistory } from "./threadHistory.js";
import type { SectionStore } from "./sectionStore.js";
import type { AttachmentStore } from "./attachmentStore.js";
import type { ThreadStore } from "./threadStore.js";
import { storedThread } from "./wireViews.js";

/** What reads and edits need from the registry of loaded threads (the ThreadManager). */
export interface LoadedThreads<S> {
  /** The loaded thread with this id, if it is loaded. */
  find(threadId: string): LoadedThread<S> | undefined;
  /** The history of a loaded or stored thread; `missing` says how an unknown id fails. */
  history(threadId: string, missing: (id: string) => Error): Promise<ThreadHistory>;
  /** Appends a record to a loaded or stored thread; resolves with who should hear of it. */
  appendTo(threadId: string, record: ThreadRecord, requester: S | undefined): Promise<Set<S>>;
  unload(thread: LoadedThread<S>, announceClose: boolean): Promise<void>;
}

/** Throws Codex's "no rollout found" unless the thread is stored or loaded (an ephemeral one is only loaded). */
export function requireThread<S>(store: ThreadStore, registry: Pick<LoadedThreads<S>, "find">, threadId: string): void {
  if (!store.summary(threadId) && !registry.find(threadId)) throw noRolloutFound(threadId);
}

/** The store, clock and emitter the edits use, and the server's cwd (thread/list's default filter). */
export interface ThreadEditsOptions<S> {
  readonly store: ThreadStore;
  readonly sections: SectionStore;
  readonly attachments: AttachmentStore;
  readonly clock: Clock;
  readonly emit: ThreadEmitter<S>;
  readonly serverCwd: string;
}

/**
 * Reads and edits of a thread whether it is loaded or only stored: `thread/read`, `thread/list`,
 * archive, name, git metadata and goals. A loaded thread's change goes through its open file and
 * reaches its subscribers; a stored one's is appended to its file and told to the requester.
 */
export class ThreadEdits<S> {
  constructor(
    private readonly registry: LoadedThreads<S>,
    private readonly options: ThreadEditsOptions<S>,
  ) {}

  /** `thread/read`: a loaded or stored thread, without loading it. */
  async read(threadId: string, includeTurns: boolean): Promise<{ thread: Thread; readState: ThreadReadState | null }> {
    const thread = this.registry.find(threadId);
    // As Codex: a thread that is not stored (ephemeral) has no read state.
    if (thread) return { thread: thread.toThread(includeTurns), readState: thread.ephemeral ? null : thread.history.readState() };
    const stored = await this.options.store.read(threadId);
    if (!stored) throw threadNotFound(threadId);
    const wire = storedThread(stored.summary, includeTurns ? stored.history.wireTurns() : [], undefined, this.options.sections.placement(threadId));
    return { thread: wire, readState: stored.history.readState() };
  }

  /** `thread/list`: stored threads, filtered, sorted and paged through the index. */
  list(params: ThreadListParams): ThreadPage {
    return listThreads(this.options.store.summaries(), params, (summary) => {
      const loaded = this.registry.find(summary.id);
      return storedThread(summary, [], loaded?.status, this.options.sections.placement(summary.id));
    }, this.options.serverCwd);
  }

  /** `thread/archive`: unloads the thread and moves its file to `archived_sessions/`. */
  async archive(threadId: string, requester: S): Promise<Outcome<Record<string, never>>> {
    const summary = this.options.store.summary(threadId);
    if (!summary || summary.archived) throw noRolloutFound(threadId);
    const thread = this.registry.find(threadId);
    const told = thread ? new Set(thread.subscribers) : new Set([requester]);
    if (thread) await this.registry.unload(thread, false);
    await this.options.store.move(summary, true);
    return { result: {}, after: () => this.options.emit(told, "thread/archived", { threadId }) };
  }

  /** `thread/delete`: unloads the thread and deletes its file for good; `thread/deleted` follows, to whoever watched it. */
  async delete(threadId: string, requester: S): Promise<Outcome<Record<string, never>>> {
    const summary = this.options.store.summary(threadId);
    if (!summary) throw noRolloutFound(threadId);
    const thread = this.registry.find(threadId);
    const told = thread ? new Set([...thread.subscribers, requester]) : new Set([requester]);
    if (thread) await this.registry.unload(thread, false);
    await this.options.store.delete(summary);
    await this.options.sections.forget(threadId);
    await this.options.attachments.forget(threadId);
    return { result: {}, after: () => this.options.emit(told, "thread/deleted", { threadId }) };
  }

  /**
   * `thread/revert`: the history from turn `beforeTurnId` on is gone (turns, items and what the
   * model sees); files the turns changed are not touched. Not while a turn runs.
   */
  async revert(threadId: string, beforeTurnId: string, requester: S): Promise<{ thread: Thread } & HistoryHeads> {
    if (this.registry.find(threadId)?.running) throw invalidRequest(`thread ${threadId} is running a turn; revert it once the turn ends`);
    const history = await this.registry.history(threadId, noRolloutFound);
    const problem = history.revertProblem(beforeTurnId);
    if (problem) throw invalidRequest(problem);
    const kept = history.turns.slice(0, history.turns.findIndex((turn) => turn.id === beforeTurnId));
    await this.registry.appendTo(threadId, { type: "reverted", at: this.options.clock.nowMs(), beforeTurnId }, requester);
    // Clients page the history that is left themselves (thread/turns/list, thread/items/list), from the newest.
    return { thread: (await this.read(threadId, false)).thread, ...historyHeads(threadId, kept) };
  }

  /** `thread/inject_items`: raw Responses items appended to what the model sees, from the next model call on. */
  async injectItems(threadId: string, items: readonly ConversationItem[], requester: S): Promise<Record<string, never>> {
    const history = await this.registry.history(threadId, noRolloutFound);
    const turnId = history.turns.at(-1)?.id ?? "";
    await this.registry.appendTo(threadId, { type: "model", at: this.options.clock.nowMs(), turnId, items: [...items] }, requester);
    return {};
  }

  /** `thread/section/move`: into, within, or out of a section; `thread/section/changed` follows to whoever watches the thread. */
  async moveToSection(threadId: string, sectionId: string | null, beforeThreadId: string | null, requester: S): Promise<Outcome<Record<string, never>>> {
    requireThread(this.options.store, this.registry, threadId);
    await this.options.sections.move(threadId, sectionId, beforeThreadId, Math.floor(this.options.clock.nowMs() / 1000));
    const told = new Set([...(this.registry.find(threadId)?.subscribers ?? []), requester]);
    return { result: {}, after: () => this.options.emit(told, "thread/section/changed", { threadId, sectionId }) };
  }

  /** `thread/unarchive`: moves the file back; the thread stays unloaded. */
  async unarchive(threadId: string, requester: S): Promise<Outcome<{ thread: Thread }>> {
    const summary = this.options.store.summary(threadId);
    if (!summary || !summary.archived) throw noRolloutFound(threadId);
    const thread = storedThread(await this.options.store.move(summary, false), [], undefined, this.options.sections.placement(threadId));
    return { result: { thread }, after: () => this.options.emit([requester], "thread/unarchived", { threadId }) };
  }

  /** `thread/name/set`: names a loaded or stored thread. */
  async setName(threadId: string, name: string, requester: S): Promise<Outcome<Record<string, never>>> {
    const told = await this.registry.appendTo(threadId, { type: "name", at: this.options.clock.nowMs(), name }, requester);
    return { result: {}, after: () => this.options.emit(told, "thread/name/updated", { threadId, threadName: name }) };
  }

  /** `thread/metadata/update`: records git details of a loaded or stored thread. */
  async updateMetadata(threadId: string, gitInfo: GitInfo | null): Promise<Thread> {
    await this.registry.appendTo(threadId, { type: "gitInfo", at: this.options.clock.nowMs(), gitInfo }, undefined);
    return (await this.read(threadId, false)).thread;
  }

  /** `thread/goal/set`: creates or changes the thread's goal (loaded or stored), and tells subscribers. */
  async setGoal(params: ThreadGoalSetParams, requester: S): Promise<Outcome<{ goal: ThreadGoal }>> {
    const goal = setGoal((await this.registry.history(params.threadId, noRolloutFound)).goal, params, Math.floor(this.options.clock.nowMs() / 1000));
    const told = await this.registry.appendTo(params.threadId, { type: "goal", at: this.options.clock.nowMs(), goal }, requester);
    return { result: { goal }, after: () => this.options.emit(told, "thread/goal/updated", { threadId: params.threadId, turnId: null, goal }) };
  }

  /** `thread/goal/get`. */
  async getGoal(threadId: string): Promise<{ goal: ThreadGoal | null }> {
    return { goal: (await this.registry.history(threadId, noRolloutFound)).goal };
  }

  /** `thread/goal/clear`: removes the goal; `cleared` is false when there was none. */
  async clearGoal(threadId: string, requester: S): Promise<Outcome<{ cleared: boolean }>> {
    if (!(await this.registry.history(threadId, noRolloutFound)).goal) return { result: { cleared: false } };
    const told = await this.registry.appendTo(threadId, { type: "goal", at: this.options.clock.nowMs(), goal: null }, requester);
    return { result: { cleared: true }, after: () => this.options.emit(told, "thread/goal/cleared", { threadId }) };
  }
}
