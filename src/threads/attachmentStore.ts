/**
 * Thread attachments (`thread/attachment/*`): a client's own JSON records kept with a thread, each
 * unique by (type, identity key) within it, in `thread_attachments.json` in the home. A deleted
 * thread's attachments go with it.
 */
import path from "node:path";
import * as z from "zod";
import { lazySchema } from "../protocol/lazySchema.js";
import { ThreadAttachment } from "../protocol/attachmentMethods.js";
import { invalidRequest } from "../protocol/errors.js";
import { JsonStateFile } from "../runtime/jsonStateFile.js";

/** One attachment as the wire shows it. */
export type Attachment = z.infer<typeof ThreadAttachment>;

const AttachmentsFile = lazySchema(() => z.object({ threads: z.record(z.string(), z.array(ThreadAttachment)) }));
type AttachmentsFile = z.infer<typeof AttachmentsFile>;

// A bound on what a client may store per thread (sizes are bounded by the params' schemas).
const MAX_PER_THREAD = 256;

/** The attachments of every thread, and the file they live in. */
export class AttachmentStore {
  private readonly file: JsonStateFile<AttachmentsFile>;

  constructor(
    home: string,
    private readonly newId: () => string,
  ) {
    this.file = new JsonStateFile(path.join(home, "thread_attachments.json"), AttachmentsFile, { threads: {} });
  }

  /** Reads the file (missing or unreadable: no attachments). */
  load(): Promise<void> {
    return this.file.load();
  }

  /** A thread's attachments, oldest first. */
  list(threadId: string): readonly Attachment[] {
    return this.file.state.threads[threadId] ?? [];
  }

  /** The threads holding an attachment with this identity, in the order the file has them. */
  owners(attachmentType: string, identityKey: string): string[] {
    return Object.entries(this.file.state.threads)
      .filter(([, attachments]) => attachments.some((entry) => entry.attachmentType === attachmentType && entry.identityKey === identityKey))
      .map(([threadId]) => threadId);
  }

  /** Stores a new attachment, or returns the one this identity already names (its payload unchanged). */
  add(threadId: string, attachmentType: string, identityKey: string, payload: unknown, nowSeconds: number): Promise<{ attachment: Attachment; created: boolean }> {
    const existing = findIn(this.list(threadId), attachmentType, identityKey);
    if (existing) return Promise.resolve({ attachment: existing, created: false });
    return this.file.change((draft) => {
      const attachments = (draft.threads[threadId] ??= []);
      // Another add of the same identity may have been written while this one waited.
      const raced = findIn(attachments, attachmentType, identityKey);
      if (raced) return { attachment: raced, created: false };
      if (attachments.length >= MAX_PER_THREAD) throw invalidRequest(`thread ${threadId} already has ${MAX_PER_THREAD} attachments; remove one first`);
      const attachment: Attachment = { id: this.newId(), attachmentType, identityKey, payload, createdAt: nowSeconds };
      attachments.push(attachment);
      return { attachment, created: true };
    });
  }

  /** Removes the attachment with this identity; resolves with it, or null when there was none. */
  remove(threadId: string, attachmentType: string, identityKey: string): Promise<Attachment | null> {
    if (!findIn(this.list(threadId), attachmentType, identityKey)) return Promise.resolve(null);
    return this.file.change((draft) => {
      const attachments = draft.threads[threadId] ?? [];
      const removed = findIn(attachments, attachmentType, identityKey) ?? null;
      draft.threads[threadId] = attachments.filter((entry) => entry !== removed);
      if (draft.threads[threadId]!.length === 0) delete draft.threads[threadId];
      return removed;
    });
  }

  /** Forgets a deleted thread's attachments. */
  forget(threadId: string): Promise<void> {
    if (!this.file.state.threads[threadId]) return Promise.resolve();
    return this.file.change((draft) => {
      delete draft.threads[threadId];
    });
  }
}

function findIn(attachments: readonly Attachment[], attachmentType: string, identityKey: string): Attachment | undefined {
  return attachments.find((entry) => entry.attachmentType === attachmentType && entry.identityKey === identityKey);
}
