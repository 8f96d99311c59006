import type { Clock } from "../runtime/clock.js";
import type { AttachmentStore, Attachment } from "./attachmentStore.js";
import { offsetPage } from "./paging.js";
import type { Outcome, ThreadEmitter } from "./threadEvents.js";
import { requireThread, type LoadedThreads } from "./threadEdits.js";
import type { ThreadStore } from "./threadStore.js";

/** What the attachment methods need. */
export interface ThreadAttachmentsOptions<S> {
  readonly store: ThreadStore;
  readonly attachments: AttachmentStore;
  readonly clock: Clock;
  readonly emit: ThreadEmitter<S>;
}

// Codex's page bounds for attachment listings.
const DEFAULT_PAGE = 25;
const MAX_PAGE = 200;

/**
 * `thread/attachment/*` and `thread/attachmentOwner/list` for loaded or stored threads. A change
 * is answered first, then `thread/attachment/updated` goes to the thread's subscribers and the
 * requester; finding an attachment that already exists changes nothing and tells no one.
 */
export class ThreadAttachments<S> {
  constructor(
    private readonly registry: Pick<LoadedThreads<S>, "find">,
    private readonly options: ThreadAttachmentsOptions<S>,
  ) {}

  /** `thread/attachment/add`. */
  async add(threadId: string, attachmentType: string, identityKey: string, payload: unknown, requester: S): Promise<Outcome<{ attachment: Attachment; outcome: "created" | "existing" }>> {
    requireThread(this.options.store, this.registry, threadId);
    const nowSeconds = Math.floor(this.options.clock.nowMs() / 1000);
    const { attachment, created } = await this.options.attachments.add(threadId, attachmentType, identityKey, payload, nowSeconds);
    const result = { attachment, outcome: created ? ("created" as const) : ("existing" as const) };
    return created ? { result, after: () => this.announce(threadId, attachment, "created", requester) } : { result };
  }

  /** `thread/attachment/list`: oldest first. */
  list(threadId: string, cursor: string | null | undefined, limit: number | null | undefined): { data: Attachment[]; nextCursor: string | null } {
    requireThread(this.options.store, this.registry, threadId);
    return offsetPage(this.options.attachments.list(threadId), cursor, pageSize(limit));
  }

  /** `thread/attachment/remove`: removing what is not there succeeds and tells no one. */
  async remove(threadId: string, attachmentType: string, identityKey: string, requester: S): Promise<Outcome<Record<string, never>>> {
    requireThread(this.options.store, this.registry, threadId);
    const removed = await this.options.attachments.remove(threadId, attachmentType, identityKey);
    return removed ? { result: {}, after: () => this.announce(threadId, removed, "deleted", requester) } : { result: {} };
  }

  /** `thread/attachmentOwner/list`: stored threads holding an attachment with this identity; `archived: false` leaves archived ones out. */
  owners(attachmentType: string, identityKey: string, archived: boolean | null | undefined, cursor: string | null | undefined, limit: number | null | undefined): { data: { threadId: string; archived: boolean }[]; nextCursor: string | null } {
    const owners = this.options.attachments
      .owners(attachmentType, identityKey)
      .flatMap((threadId) => {
        const summary = this.options.store.summary(threadId);
        if (summary) return [{ threadId, archived: summary.archived }];
        // An ephemeral thread has no summary while it is loaded.
        return this.registry.find(threadId) ? [{ threadId, archived: false }] : [];
      })
      .filter((owner) => archived !== false || !owner.archived);
    return offsetPage(owners, cursor, pageSize(limit));
  }

  private announce(threadId: string, attachment: Attachment, operation: "created" | "deleted", requester: S): void {
    const told = new Set([...(this.registry.find(threadId)?.subscribers ?? []), requester]);
    this.options.emit(told, "thread/attachment/updated", {
      threadId,
      attachmentId: attachment.id,
      attachmentType: attachment.attachmentType,
      identityKey: attachment.identityKey,
      operation,
    });
  }
}

function pageSize(limit: number | null | undefined): number {
  return Math.min(Math.max(limit ?? DEFAULT_PAGE, 1), MAX_PAGE);
}
