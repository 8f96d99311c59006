import * as z from "zod";
import { lazySchema } from "./lazySchema.js";

/** How risky the automatic reviewer judged an action. */
export const GuardianRiskLevel = lazySchema(() => z.enum(["low", "medium", "high", "critical"]));

/** How clearly the user authorized the action, as the automatic reviewer read the transcript. */
export const GuardianUserAuthorization = lazySchema(() => z.enum(["unknown", "low", "medium", "high"]));

/** Where an automatic review stands. */
export const GuardianApprovalReviewStatus = lazySchema(() => z.enum(["inProgress", "approved", "denied", "timedOut", "aborted"]));

/** The state of one automatic review, as `item/autoApprovalReview/*` carry it. */
export const GuardianApprovalReview = lazySchema(() => z.object({
  status: GuardianApprovalReviewStatus,
  riskLevel: GuardianRiskLevel.nullable().optional(),
  userAuthorization: GuardianUserAuthorization.nullable().optional(),
  rationale: z.string().nullable().optional(),
}));
export type GuardianApprovalReview = z.infer<typeof GuardianApprovalReview>;

/** The action under review: a shell command, or a patch. */
export const GuardianApprovalReviewAction = lazySchema(() => z.discriminatedUnion("type", [
  z.object({ type: z.literal("command"), command: z.string(), cwd: z.string(), source: z.enum(["shell", "unifiedExec"]) }),
  z.object({ type: z.literal("applyPatch"), cwd: z.string(), files: z.array(z.string()) }),
]));
export type GuardianApprovalReviewAction = z.infer<typeof GuardianApprovalReviewAction>;

/** `item/autoApprovalReview/started`: the model is reviewing an action instead of the user. */
export const ItemGuardianApprovalReviewStartedNotification = lazySchema(() => z.object({
  threadId: z.string(),
  turnId: z.string(),
  reviewId: z.string(),
  targetItemId: z.string().nullable().optional(),
  startedAtMs: z.number().int(),
  action: GuardianApprovalReviewAction,
  review: GuardianApprovalReview,
}));

/** `item/autoApprovalReview/completed`: the review's outcome. */
export const ItemGuardianApprovalReviewCompletedNotification = lazySchema(() => ItemGuardianApprovalReviewStartedNotification.extend({
  completedAtMs: z.number().int(),
  decisionSource: z.literal("agent"),
}));

/** `guardianWarning`: something about automatic review the user should know (a review that failed, say). */
export const GuardianWarningNotification = lazySchema(() => z.object({ threadId: z.string(), message: z.string() }));

/**
 * A finished automatic review as Codex's core records it (snake_case): what a client sends back in
 * `thread/approveGuardianDeniedAction`. Only what the approval uses is checked; the rest passes.
 */
export const GuardianAssessmentEvent = lazySchema(() => z.looseObject({
  id: z.string(),
  turn_id: z.string().nullable().optional(),
  target_item_id: z.string().nullable().optional(),
  status: z.enum(["in_progress", "approved", "denied", "timed_out", "aborted"]),
  rationale: z.string().nullable().optional(),
  action: z.looseObject({ type: z.string() }),
}));
export type GuardianAssessmentEvent = z.infer<typeof GuardianAssessmentEvent>;

/** Params of `thread/approveGuardianDeniedAction`: the user overrides a denial, for one retry of that exact action. */
export const ThreadApproveGuardianDeniedActionParams = lazySchema(() => z.object({ threadId: z.string(), event: z.unknown().refine((value) => value !== undefined, { message: "missing required field" }) }));
