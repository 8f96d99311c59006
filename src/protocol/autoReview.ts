import * as z from "zod";

/** How risky the automatic reviewer judged an action. */
export const GuardianRiskLevel = z.enum(["low", "medium", "high", "critical"]);

/** How clearly the user authorized the action, as the automatic reviewer read the transcript. */
export const GuardianUserAuthorization = z.enum(["unknown", "low", "medium", "high"]);

/** Where an automatic review stands. */
export const GuardianApprovalReviewStatus = z.enum(["inProgress", "approved", "denied", "timedOut", "aborted"]);

/** The state of one automatic review, as `item/autoApprovalReview/*` carry it. */
export const GuardianApprovalReview = z.object({
  status: GuardianApprovalReviewStatus,
  riskLevel: GuardianRiskLevel.nullable().optional(),
  userAuthorization: GuardianUserAuthorization.nullable().optional(),
  rationale: z.string().nullable().optional(),
});
export type GuardianApprovalReview = z.infer<typeof GuardianApprovalReview>;

/** The action under review: a shell command, or a patch. */
export const GuardianApprovalReviewAction = z.discriminatedUnion("type", [
  z.object({ type: z.literal("command"), command: z.string(), cwd: z.string(), source: z.enum(["shell", "unifiedExec"]) }),
  z.object({ type: z.literal("applyPatch"), cwd: z.string(), files: z.array(z.string()) }),
]);
export type GuardianApprovalReviewAction = z.infer<typeof GuardianApprovalReviewAction>;

/** `item/autoApprovalReview/started`: the model is reviewing an action instead of the user. */
export const ItemGuardianApprovalReviewStartedNotification = z.object({
  threadId: z.string(),
  turnId: z.string(),
  reviewId: z.string(),
  targetItemId: z.string().nullable().optional(),
  startedAtMs: z.number().int(),
  action: GuardianApprovalReviewAction,
  review: GuardianApprovalReview,
});

/** `item/autoApprovalReview/completed`: the review's outcome. */
export const ItemGuardianApprovalReviewCompletedNotification = ItemGuardianApprovalReviewStartedNotification.extend({
  completedAtMs: z.number().int(),
  decisionSource: z.literal("agent"),
});

/** `guardianWarning`: something about automatic review the user should know (a review that failed, say). */
export const GuardianWarningNotification = z.object({ threadId: z.string(), message: z.string() });
