import type { CommandExecutionApprovalDecision, CommandExecutionRequestApprovalParams } from "../protocol/index.js";
import type { PermissionOption, RequestPermissionResponse, ToolCallUpdate } from "../vendor/acp.js";
import { oneLine, outputContent } from "./toolCalls.js";

/** A decision both approval requests take. */
export type Decision = "accept" | "acceptForSession" | "decline" | "cancel";

/** An option and the decision it stands for. */
interface Choice extends PermissionOption {
  readonly decision: CommandExecutionApprovalDecision;
}

/**
 * The choices an approval offers an editor: once; always, which is a rule (the command prefix the
 * server proposes, saved as an approval rule) or else our approval memory for the session (the
 * same command, or any patch to the same files); no; and no and stop the turn. Ids as codex-acp
 * names them, so an editor that remembers a choice by id remembers ours too.
 */
function choices(amendment: readonly string[] | null | undefined): Choice[] {
  const always: Choice = amendment?.length
    ? {
        optionId: "approved-execpolicy-amendment",
        name: `Yes, and don't ask again for commands that start with \`${amendment.join(" ")}\``,
        kind: "allow_always",
        decision: { acceptWithExecpolicyAmendment: { execpolicy_amendment: [...amendment] } },
      }
    : { optionId: "approved-for-session", name: "Yes, and don't ask again this session", kind: "allow_always", decision: "acceptForSession" };
  return [
    { optionId: "approved", name: "Yes", kind: "allow_once", decision: "accept" },
    always,
    { optionId: "denied", name: "No, continue without it", kind: "reject_once", decision: "decline" },
    { optionId: "abort", name: "No, and stop the turn", kind: "reject_once", decision: "cancel" },
  ];
}

/** An approval's options for `session/request_permission`, and how to read the editor's answer. */
export function permission(params?: Pick<CommandExecutionRequestApprovalParams, "proposedExecpolicyAmendment">): {
  readonly options: PermissionOption[];
  readonly decisionOf: (response: RequestPermissionResponse) => CommandExecutionApprovalDecision;
} {
  const offered = choices(params?.proposedExecpolicyAmendment);
  return {
    options: offered.map(({ optionId, name, kind }) => ({ optionId, name, kind })),
    // A cancelled request (the prompt was cancelled) or an option we never offered cancels.
    decisionOf: (response) => (response.outcome.outcome === "selected" ? offered.find((option) => option.optionId === (response.outcome as { optionId: string }).optionId)?.decision : undefined) ?? "cancel",
  };
}

/**
 * A command approval's tool call, as the editor shows it while it asks: a one-line title (the
 * model's justification after it), and the whole command as content, so nothing of it hides
 * behind line breaks or escape sequences.
 */
export function commandPermissionCall(params: CommandExecutionRequestApprovalParams): ToolCallUpdate {
  const command = params.command ?? "";
  return {
    toolCallId: params.itemId,
    title: oneLine(params.reason ? `${command} (${params.reason})` : command),
    kind: "execute",
    status: "pending",
    content: outputContent(command),
    rawInput: { command, cwd: params.cwd ?? null, reason: params.reason ?? null },
  };
}
