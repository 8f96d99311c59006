import * as z from "zod";
import { lazySchema } from "./lazySchema.js";

/** Where a goal stands; `budgetLimited` stops new turns until the client raises the budget or resets the status. */
export const ThreadGoalStatus = lazySchema(() => z.enum(["active", "paused", "blocked", "usageLimited", "budgetLimited", "complete"]));
export type ThreadGoalStatus = z.infer<typeof ThreadGoalStatus>;

/** A thread's goal and what pursuing it has cost so far. Times are Unix seconds. */
export const ThreadGoal = lazySchema(() => z.object({
  threadId: z.string(),
  objective: z.string(),
  status: ThreadGoalStatus,
  tokenBudget: z.number().int().nonnegative().nullable().optional(),
  tokensUsed: z.number().int().nonnegative(),
  timeUsedSeconds: z.number().int().nonnegative(),
  createdAt: z.number().int(),
  updatedAt: z.number().int(),
}));
export type ThreadGoal = z.infer<typeof ThreadGoal>;

/** Who changed a goal. */
export const ThreadGoalMutationOrigin = lazySchema(() => z.enum(["user", "automatic"]));

/** Params of `thread/goal/set`: creates the goal (an objective is needed) or changes it. */
export const ThreadGoalSetParams = lazySchema(() => z.object({
  threadId: z.string(),
  objective: z.string().min(1).nullable().optional(),
  status: ThreadGoalStatus.nullable().optional(),
  tokenBudget: z.number().int().nonnegative().nullable().optional(),
  origin: ThreadGoalMutationOrigin.nullable().optional(),
}));
export type ThreadGoalSetParams = z.infer<typeof ThreadGoalSetParams>;

/** Params of `thread/goal/clear`. */
export const ThreadGoalClearParams = lazySchema(() => z.object({ threadId: z.string(), origin: ThreadGoalMutationOrigin.nullable().optional() }));

/** Result of `thread/goal/set`. */
export const ThreadGoalSetResponse = lazySchema(() => z.object({ goal: ThreadGoal }));

/** Result of `thread/goal/get`. */
export const ThreadGoalGetResponse = lazySchema(() => z.object({ goal: ThreadGoal.nullable().optional() }));

/** Result of `thread/goal/clear`: whether there was a goal to clear. */
export const ThreadGoalClearResponse = lazySchema(() => z.object({ cleared: z.boolean() }));

/** `thread/goal/updated`: set by a client, or charged with a turn's tokens and time (`turnId`). */
export const ThreadGoalUpdatedNotification = lazySchema(() => z.object({ threadId: z.string(), turnId: z.string().nullable().optional(), goal: ThreadGoal }));

/** `thread/goal/cleared`. */
export const ThreadGoalClearedNotification = lazySchema(() => z.object({ threadId: z.string() }));
