/**
 * One loaded thread's state in memory: its history, file, status, subscribers, what the user
 * approved and has read, the running turn and the chain its turns end on. The ThreadManager keeps
 * one per loaded thread.
 */
import { ApprovalMemory } from "../agent/approvalMemory.js";
import type { ThreadStatus } from "../protocol/thread.js";
import type { ActiveTurn } from "./activeTurn.js";
import { ThreadReadTracker } from "./readState.js";
import type { ThreadFileWriter } from "./threadFile.js";
import type { ThreadHistory } from "./threadHistory.js";

/** A loaded thread's state. */
export interface LoadedThread<S> {
  readonly history: ThreadHistory;
  readonly ephemeral: boolean;
  path: string | null;
  writer: ThreadFileWriter | null;
  status: ThreadStatus;
  readonly subscribers: Set<S>;
  /** Connections that unsubscribed: told when the thread unloads, as Codex does. */
  readonly former: Set<S>;
  unloadTimer?: NodeJS.Timeout;
  /** What the user accepted for the rest of this thread's life in memory (`acceptForSession`). */
  readonly sessionApprovals: ApprovalMemory;
  /** Which finished turns the user has not seen yet (kept in memory only). */
  readonly readState: ThreadReadTracker;
  /** The running turn, until it starts ending. */
  active?: ActiveTurn;
  /** Settles when the last turn has fully ended (its `turn/completed` sent); the next turn waits for it. */
  ending: Promise<void>;
}

/** A thread just loaded: idle, nobody subscribed, nothing approved or unread yet. */
export function loadedThread<S>(history: ThreadHistory, ephemeral: boolean, path: string | null, writer: ThreadFileWriter | null): LoadedThread<S> {
  return {
    history,
    ephemeral,
    path,
    writer,
    status: { type: "idle" },
    subscribers: new Set(),
    former: new Set(),
    ending: Promise.resolve(),
    sessionApprovals: new ApprovalMemory(),
    readState: new ThreadReadTracker(),
  };
}
