import * as z from "zod";
import { lazySchema } from "./lazySchema.js";
import { ThreadItem } from "./items.js";

/** Lifecycle of a turn. */
export const TurnStatus = lazySchema(() => z.enum(["completed", "interrupted", "failed", "inProgress"]));
export type TurnStatus = z.infer<typeof TurnStatus>;

const HttpStatusDetail = lazySchema(() => z.object({ httpStatusCode: z.number().int().nullable().optional() }));

/** Machine-readable classification of a turn error (camelCase strings or single-key objects). */
export const CodexErrorInfo = lazySchema(() => z.union([
  z.enum([
    "contextWindowExceeded",
    "sessionBudgetExceeded",
    "usageLimitExceeded",
    "rateLimitExceeded",
    "flexUnavailable",
    "serverOverloaded",
    "modelNotFound",
    "policyCapacityUnavailable",
    "cyberPolicy",
    "misalignmentPolicyViolation",
    "tooManyDenials",
    "internalServerError",
    "unauthorized",
    "badRequest",
    "threadRollbackFailed",
    "sandboxError",
    "other",
    "inferenceHookDenied",
  ]),
  z.object({ httpConnectionFailed: HttpStatusDetail }),
  z.object({ responseStreamConnectionFailed: HttpStatusDetail }),
  z.object({ responseStreamDisconnected: HttpStatusDetail }),
  z.object({ responseTooManyFailedAttempts: HttpStatusDetail }),
]));
export type CodexErrorInfo = z.infer<typeof CodexErrorInfo>;

/** Why a turn failed. */
export const TurnError = lazySchema(() => z.object({
  message: z.string(),
  codexErrorInfo: CodexErrorInfo.nullable().optional(),
  additionalDetails: z.string().nullable().optional(),
}));
export type TurnError = z.infer<typeof TurnError>;

/** How complete `Turn.items` is. */
export const TurnItemsView = lazySchema(() => z.enum(["notLoaded", "summary", "full"]));

/** One user request and everything the agent did for it. */
export const Turn = lazySchema(() => z.object({
  id: z.string(),
  rootTurnId: z.string().nullable().optional(),
  items: z.array(ThreadItem),
  itemsView: TurnItemsView.optional(),
  status: TurnStatus,
  error: TurnError.nullable().optional(),
  startedAt: z.number().int().nullable().optional(),
  completedAt: z.number().int().nullable().optional(),
  durationMs: z.number().int().nullable().optional(),
}));
export type Turn = z.infer<typeof Turn>;

/** Token counts of one model response or of a whole thread. */
export const TokenUsageBreakdown = lazySchema(() => z.object({
  totalTokens: z.number().int(),
  inputTokens: z.number().int(),
  cachedInputTokens: z.number().int(),
  cacheWriteInputTokens: z.number().int().optional(),
  outputTokens: z.number().int(),
  reasoningOutputTokens: z.number().int(),
}));

/** A thread's token usage: the last response and the running total. */
export const ThreadTokenUsage = lazySchema(() => z.object({
  total: TokenUsageBreakdown,
  last: TokenUsageBreakdown,
  modelContextWindow: z.number().int().nullable().optional(),
}));

/** One step of the agent's plan. */
export const TurnPlanStep = lazySchema(() => z.object({
  step: z.string(),
  status: z.enum(["pending", "inProgress", "completed"]),
}));
