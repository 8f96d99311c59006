import { invalidRequest } from "../protocol/errors.js";
import type { ThreadReadState } from "../protocol/thread.js";

/**
 * Unread tracking for one loaded thread: a finished turn the user has not seen is the first
 * unread position until the client marks the thread read. Each change takes a new revision so a
 * client can update against the state it last saw.
 */
export class ThreadReadTracker {
  private firstUnread: ThreadReadState["firstUnread"] = null;
  private revision = 0;

  /** The state as sent to clients. */
  current(): ThreadReadState {
    const revision = String(this.revision);
    return this.firstUnread ? { firstUnread: this.firstUnread, revision } : { revision };
  }

  /** A turn ended: the earliest unseen turn stays the first unread one. */
  turnEnded(turnId: string): ThreadReadState {
    this.firstUnread ??= { type: "turn", turnId };
    this.revision += 1;
    return this.current();
  }

  /** The client has seen everything; refused when it acted on a revision that is no longer current. */
  markRead(threadId: string, expectedRevision: string | null | undefined): ThreadReadState {
    if (expectedRevision != null && expectedRevision !== String(this.revision)) {
      throw invalidRequest(
        `read state of thread ${threadId} is at revision ${this.revision}, not ${expectedRevision}; read it again and retry`,
      );
    }
    this.firstUnread = null;
    this.revision += 1;
    return this.current();
  }
}
