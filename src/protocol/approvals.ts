import * as z from "zod";
import { lazySchema } from "./lazySchema.js";
import { CommandAction } from "./items.js";

/** A network rule the client may approve alongside a command. */
export const NetworkPolicyAmendment = lazySchema(() => z.object({ host: z.string(), action: z.enum(["allow", "deny"]) }));

/** Params of the server→client request `item/commandExecution/requestApproval`. */
export const CommandExecutionRequestApprovalParams = lazySchema(() => z.object({
  threadId: z.string(),
  turnId: z.string(),
  itemId: z.string(),
  startedAtMs: z.number().int(),
  approvalId: z.string().nullable().optional(),
  kind: z.enum(["command", "writeStdin", "humanCommand"]).optional(),
  /** Where the command runs; this server runs everything in its own `local` environment. */
  environmentId: z.string().nullable().optional(),
  reason: z.string().nullable().optional(),
  command: z.string().nullable().optional(),
  cwd: z.string().nullable().optional(),
  commandActions: z.array(CommandAction).nullable().optional(),
  proposedExecpolicyAmendment: z.array(z.string()).nullable().optional(),
  proposedNetworkPolicyAmendments: z.array(NetworkPolicyAmendment).nullable().optional(),
  /** Advisory: the decisions this request offers (Codex sends it; every decision is accepted). */
  availableDecisions: z.array(z.lazy(() => CommandExecutionApprovalDecision)).nullable().optional(),
}));
export type CommandExecutionRequestApprovalParams = z.infer<typeof CommandExecutionRequestApprovalParams>;

/** The client's answer to a command approval (nested keys are snake_case on the wire). */
export const CommandExecutionApprovalDecision = lazySchema(() => z.union([
  z.enum(["accept", "acceptForSession", "decline", "cancel"]),
  z.object({ acceptWithExecpolicyAmendment: z.object({ execpolicy_amendment: z.array(z.string()) }) }),
  z.object({ applyNetworkPolicyAmendment: z.object({ network_policy_amendment: NetworkPolicyAmendment }) }),
]));
export type CommandExecutionApprovalDecision = z.infer<typeof CommandExecutionApprovalDecision>;

/** Result of `item/commandExecution/requestApproval`. */
export const CommandExecutionRequestApprovalResponse = lazySchema(() => z.object({ decision: CommandExecutionApprovalDecision }));

/** Params of the server→client request `item/fileChange/requestApproval`. */
export const FileChangeRequestApprovalParams = lazySchema(() => z.object({
  threadId: z.string(),
  turnId: z.string(),
  itemId: z.string(),
  startedAtMs: z.number().int(),
  reason: z.string().nullable().optional(),
  grantRoot: z.string().nullable().optional(),
}));
export type FileChangeRequestApprovalParams = z.infer<typeof FileChangeRequestApprovalParams>;

/** The client's answer to a file change approval. */
export const FileChangeApprovalDecision = lazySchema(() => z.enum(["accept", "acceptForSession", "decline", "cancel"]));

/** Result of `item/fileChange/requestApproval`. */
export const FileChangeRequestApprovalResponse = lazySchema(() => z.object({ decision: FileChangeApprovalDecision }));
