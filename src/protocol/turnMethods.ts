import * as z from "zod";
import { lazySchema } from "./lazySchema.js";
import { ApprovalsReviewer, AskForApprovalInput, PermissionProfileId, profileOrSandbox, ReasoningEffort, ReasoningSummary, SandboxPolicy } from "./policy.js";
import { Turn } from "./turn.js";
import { UserInput } from "./userInput.js";

/** Params of `turn/start`: the input plus overrides that persist for later turns (`outputSchema` is this turn only). */
export const TurnStartParams = lazySchema(() => z.object({
  threadId: z.string(),
  input: z.array(UserInput),
  cwd: z.string().nullable().optional(),
  approvalPolicy: AskForApprovalInput.nullable().optional(),
  approvalsReviewer: ApprovalsReviewer.nullable().optional(),
  sandboxPolicy: SandboxPolicy.nullable().optional(),
  /** Experimental: a permission profile instead of `sandboxPolicy`, for this turn and later ones. */
  permissions: PermissionProfileId.nullable().optional(),
  model: z.string().nullable().optional(),
  effort: ReasoningEffort.nullable().optional(),
  summary: ReasoningSummary.nullable().optional(),
  serviceTier: z.string().nullable().optional(),
  personality: z.enum(["none", "friendly", "pragmatic"]).nullable().optional(),
  outputSchema: z.unknown().optional(),
  clientUserMessageId: z.string().nullable().optional(),
}).superRefine(profileOrSandbox("sandboxPolicy")));
export type TurnStartParams = z.infer<typeof TurnStartParams>;

/** Result of `turn/start`: the new (or, when one was running, the active) turn. */
export const TurnStartResponse = lazySchema(() => z.object({ turn: Turn }));

/** Params of `turn/steer`: more input for the running turn. */
export const TurnSteerParams = lazySchema(() => z.object({
  threadId: z.string(),
  expectedTurnId: z.string(),
  input: z.array(UserInput),
  clientUserMessageId: z.string().nullable().optional(),
}));
export type TurnSteerParams = z.infer<typeof TurnSteerParams>;

/** Result of `turn/steer`. */
export const TurnSteerResponse = lazySchema(() => z.object({ turnId: z.string() }));

/** Params of `turn/interrupt`. */
export const TurnInterruptParams = lazySchema(() => z.object({ threadId: z.string(), turnId: z.string() }));
