/** `thread/attachment/*` and `thread/attachmentOwner/list`: a client's own records kept with a thread. */
import * as z from "zod";
import { lazySchema } from "./lazySchema.js";

/** A non-blank string of at most `maxBytes` UTF-8 bytes. */
function boundedKey(maxBytes: number) {
  return z
    .string()
    .refine((value) => value.trim() !== "", { message: "must not be empty" })
    .refine((value) => Buffer.byteLength(value) <= maxBytes, { message: `must not exceed ${maxBytes} bytes` });
}

// Bounds on what a client may store: every change rewrites the attachments file whole.
const AttachmentType = lazySchema(() => boundedKey(128));
const IdentityKey = lazySchema(() => boundedKey(1024));
const MAX_PAYLOAD_BYTES = 64 * 1024;

/** An attachment: a client's JSON payload under a (type, identity key) that is unique within its thread. */
export const ThreadAttachment = lazySchema(() => z.object({
  id: z.string(),
  attachmentType: z.string(),
  identityKey: z.string(),
  payload: z.unknown(),
  /** Unix seconds. */
  createdAt: z.number().int(),
}));

/** Params of `thread/attachment/add`: creates the attachment, or finds the one with this identity. */
export const ThreadAttachmentAddParams = lazySchema(() => z.object({
  threadId: z.string(),
  attachmentType: AttachmentType,
  identityKey: IdentityKey,
  // Required, as in Codex: null is a payload, a missing key is not.
  payload: z
    .unknown()
    .refine((value) => value !== undefined, { message: "missing required field" })
    .refine((value) => Buffer.byteLength(JSON.stringify(value) ?? "") <= MAX_PAYLOAD_BYTES, { message: `must not exceed ${MAX_PAYLOAD_BYTES} bytes as JSON` }),
}));

/** Result of `thread/attachment/add`: `existing` when the identity was taken (its payload unchanged). */
export const ThreadAttachmentAddResponse = lazySchema(() => z.object({ attachment: ThreadAttachment, outcome: z.enum(["created", "existing"]) }));

/** Params of `thread/attachment/list`. */
export const ThreadAttachmentListParams = lazySchema(() => z.object({
  threadId: z.string(),
  cursor: z.string().nullable().optional(),
  limit: z.number().int().nonnegative().nullable().optional(),
}));

/** Result of `thread/attachment/list`: oldest first. */
export const ThreadAttachmentListResponse = lazySchema(() => z.object({ data: z.array(ThreadAttachment), nextCursor: z.string().nullable().optional() }));

/** Params of `thread/attachment/remove`: by identity; removing what is not there succeeds. */
export const ThreadAttachmentRemoveParams = lazySchema(() => z.object({ threadId: z.string(), attachmentType: AttachmentType, identityKey: IdentityKey }));

/** Params of `thread/attachmentOwner/list`: the threads holding an attachment with this identity. */
export const ThreadAttachmentOwnerListParams = lazySchema(() => z.object({
  attachmentType: z.string(),
  identityKey: z.string(),
  /** Omitted or null: all owners; false: only threads that are not archived. */
  archived: z.boolean().nullable().optional(),
  cursor: z.string().nullable().optional(),
  limit: z.number().int().nonnegative().nullable().optional(),
}));

/** Result of `thread/attachmentOwner/list`. */
export const ThreadAttachmentOwnerListResponse = lazySchema(() => z.object({
  data: z.array(z.object({ threadId: z.string(), archived: z.boolean() })),
  nextCursor: z.string().nullable().optional(),
}));

/** `thread/attachment/updated`: an attachment was created or deleted. */
export const ThreadAttachmentUpdatedNotification = lazySchema(() => z.object({
  threadId: z.string(),
  attachmentId: z.string(),
  attachmentType: z.string(),
  identityKey: z.string(),
  operation: z.enum(["created", "deleted"]),
}));
