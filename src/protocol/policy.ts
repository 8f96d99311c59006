import * as z from "zod";
import { lazySchema } from "./lazySchema.js";

/** When the agent must ask the client before acting (`approvalPolicy`, kebab-case on the wire). */
export const AskForApproval = lazySchema(() => z.union([
  z.enum(["untrusted", "on-request", "never"]),
  z.object({
    granular: z.object({
      sandbox_approval: z.boolean(),
      rules: z.boolean(),
      mcp_elicitations: z.boolean(),
      request_permissions: z.boolean().optional(),
      skill_approval: z.boolean().optional(),
    }),
  }),
]));
export type AskForApproval = z.infer<typeof AskForApproval>;

// Older clients and docs still send these; Codex 0.169 rejects them, we read them as their successors.
const APPROVAL_ALIASES: Readonly<Record<string, string>> = { "on-failure": "on-request", unlessTrusted: "untrusted" };

/** `approvalPolicy` as clients send it: {@link AskForApproval}, or a legacy alias (`on-failure`, `unlessTrusted`). */
export const AskForApprovalInput = lazySchema(() => z.preprocess(
  (value) => (typeof value === "string" ? (APPROVAL_ALIASES[value] ?? value) : value),
  AskForApproval,
));

/** Who reviews approval requests. */
export const ApprovalsReviewer = lazySchema(() => z.enum(["user", "auto_review", "guardian_subagent"]));
export type ApprovalsReviewer = z.infer<typeof ApprovalsReviewer>;

/** The coarse sandbox choice of `thread/start.sandbox` and config's `sandbox_mode` (kebab-case). */
export const SandboxMode = lazySchema(() => z.enum(["read-only", "workspace-write", "danger-full-access"]));
export type SandboxMode = z.infer<typeof SandboxMode>;

/** Codex's built-in permission profiles, each standing for a sandbox mode (this server has no named `[permissions]` profiles). */
export const PermissionProfileId = lazySchema(() => z.enum([":read-only", ":workspace", ":danger-full-access"]));
export type PermissionProfileId = z.infer<typeof PermissionProfileId>;

/** The sandbox mode each built-in profile stands for. */
export const PROFILE_SANDBOX_MODE: Readonly<Record<PermissionProfileId, SandboxMode>> = {
  ":read-only": "read-only",
  ":workspace": "workspace-write",
  ":danger-full-access": "danger-full-access",
};

/** A refinement: a permission profile and an explicit sandbox cannot both be given, as in Codex. */
export function profileOrSandbox(sandboxField: string, profileField = "permissions") {
  return (params: Record<string, unknown>, context: z.RefinementCtx) => {
    if (params[profileField] != null && params[sandboxField] != null) {
      context.addIssue({ code: "custom", path: [profileField], message: `\`${profileField}\` cannot be combined with \`${sandboxField}\`` });
    }
  };
}

/** Network access of an external sandbox. */
export const NetworkAccess = lazySchema(() => z.enum(["restricted", "enabled"]));

/** The full sandbox policy of `turn/start.sandboxPolicy` and responses (camelCase `type`). */
export const SandboxPolicy = lazySchema(() => z.discriminatedUnion("type", [
  z.object({ type: z.literal("dangerFullAccess") }),
  z.object({ type: z.literal("readOnly"), networkAccess: z.boolean().optional() }),
  z.object({ type: z.literal("externalSandbox"), networkAccess: NetworkAccess.optional() }),
  z.object({
    type: z.literal("workspaceWrite"),
    writableRoots: z.array(z.string()).optional(),
    networkAccess: z.boolean().optional(),
    excludeTmpdirEnvVar: z.boolean().optional(),
    excludeSlashTmp: z.boolean().optional(),
  }),
]));
export type SandboxPolicy = z.infer<typeof SandboxPolicy>;

/** Reasoning effort; models advertise their own strings, so any string is accepted. */
export const ReasoningEffort = lazySchema(() => z.string());

/** How much reasoning summary the model should produce. */
export const ReasoningSummary = lazySchema(() => z.enum(["auto", "concise", "detailed", "none"]));
