import * as z from "zod";
import { lazySchema } from "./lazySchema.js";

/** Params of `feedback/save`: a feedback archive written on this host (never sent anywhere). */
export const FeedbackSaveParams = lazySchema(() => z.object({
  classification: z.string(),
  savePath: z.string().refine((value) => value.startsWith("/"), "must be an absolute path"),
  reason: z.string().nullable().optional(),
  tags: z.record(z.string(), z.string()).nullable().optional(),
  threadId: z.string().nullable().optional(),
  includeLogs: z.boolean().optional(),
  extraLogFiles: z.array(z.string()).nullable().optional(),
}));
export type FeedbackSaveParams = z.infer<typeof FeedbackSaveParams>;

/** Result of `feedback/save`. */
export const FeedbackSaveResponse = lazySchema(() => z.object({ savedPath: z.string(), threadId: z.string(), promptHash: z.string().nullable().optional() }));
