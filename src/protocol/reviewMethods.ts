import * as z from "zod";
import { lazySchema } from "./lazySchema.js";
import { Turn } from "./turn.js";

/** What a review looks at. */
export const ReviewTarget = lazySchema(() => z.discriminatedUnion("type", [
  z.object({ type: z.literal("uncommittedChanges") }),
  z.object({ type: z.literal("baseBranch"), branch: z.string().min(1) }),
  z.object({ type: z.literal("commit"), sha: z.string().min(1), title: z.string().nullable().optional() }),
  z.object({ type: z.literal("custom"), instructions: z.string().min(1) }),
]));
export type ReviewTarget = z.infer<typeof ReviewTarget>;

/** Params of `review/start`. */
export const ReviewStartParams = lazySchema(() => z.object({
  threadId: z.string(),
  target: ReviewTarget,
  delivery: z.literal("inline").nullable().optional(),
}));
export type ReviewStartParams = z.infer<typeof ReviewStartParams>;

/** Result of `review/start`: the review turn, run inline on the thread itself. */
export const ReviewStartResponse = lazySchema(() => z.object({ turn: Turn, reviewThreadId: z.string() }));
