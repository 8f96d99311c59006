import type { CommandExecutionRequestApprovalParams } from "../protocol/index.js";
import type { PermissionOption, RequestPermissionResponse, ToolCallUpdate } from "../vendor/acp.js";

/** A decision both approval requests take. */
export type Decision = "accept" | "acceptForSession" | "decline" | "cancel";

/**
 * The choices an approval offers an editor: once, for the rest of the session (our approval
 * memory: the same command, or any patch to the same files), or no. Ids as codex-acp names them,
 * so an editor that remembers a choice by id remembers ours too.
 */
const OPTIONS: ReadonlyArray<PermissionOption & { readonly decision: Decision }> = [
  { optionId: "approved", name: "Yes", kind: "allow_once", decision: "accept" },
  { optionId: "approved-for-session", name: "Yes, and don't ask again this session", kind: "allow_always", decision: "acceptForSession" },
  { optionId: "denied", name: "No, continue without it", kind: "reject_once", decision: "decline" },
  { optionId: "abort", name: "No, and stop the turn", kind: "reject_once", decision: "cancel" },
];

/** An approval's options for `session/request_permission`; a command's follow the decisions it offers. */
export function permissionOptions(params?: Pick<CommandExecutionRequestApprovalParams, "availableDecisions">): PermissionOption[] {
  const offered = params?.availableDecisions;
  return OPTIONS.filter((option) => !offered || offered.includes(option.decision)).map(({ optionId, name, kind }) => ({ optionId, name, kind }));
}

/** The decision an editor's answer stands for: a cancelled request (the prompt was cancelled) cancels. */
export function decisionOf(response: RequestPermissionResponse): Decision {
  if (response.outcome.outcome !== "selected") return "cancel";
  const { optionId } = response.outcome;
  return OPTIONS.find((option) => option.optionId === optionId)?.decision ?? "cancel";
}

/** A command approval's tool call, as the editor shows it while it asks. */
export function commandPermissionCall(params: CommandExecutionRequestApprovalParams): ToolCallUpdate {
  const command = params.command ?? "";
  return {
    toolCallId: params.itemId,
    title: params.reason ? `${command} (${params.reason})` : command,
    kind: "execute",
    status: "pending",
    rawInput: { command, cwd: params.cwd ?? null, reason: params.reason ?? null },
  };
}

