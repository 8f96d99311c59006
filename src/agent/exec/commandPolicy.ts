import type { RuleAction } from "../../config/schema.js";
import type { AskForApproval, SandboxPolicy } from "../../protocol/policy.js";

/** What to do with a command before running it. */
export interface CommandDecision {
  /** Ask the client first. */
  readonly ask: boolean;
  /** Run it inside the sandbox (false: as the server's user, unrestricted). */
  readonly sandboxed: boolean;
  /** Refuse it without asking: an approval rule denies it, or asks when the policy is `never`. */
  readonly refused?: boolean;
}

/**
 * Codex's approval rules for commands: `never` never asks; `untrusted` asks for anything but
 * known-safe read-only commands; `on-request` (and granular policies) asks only when the model
 * requests escalation. An escalated command, once approved, runs outside the sandbox; a command
 * the user accepted for the session is not asked again.
 */
export function decideCommand(
  policy: AskForApproval,
  sandbox: SandboxPolicy,
  facts: {
    readonly escalate: boolean;
    readonly knownSafe: boolean;
    readonly acceptedForSession: boolean;
    /** What a matching `[[approval_rules]]` entry says, before the policy is consulted. */
    readonly rule: RuleAction | null;
  },
): CommandDecision {
  const sandboxActive = sandbox.type === "readOnly" || sandbox.type === "workspaceWrite";
  const escalate = facts.escalate && sandboxActive;
  if (facts.rule === "deny") return { ask: false, sandboxed: sandboxActive, refused: true };
  // An allow rule waives the question, not the sandbox.
  if (facts.rule === "allow") return { ask: false, sandboxed: sandboxActive };
  if (facts.rule === "ask") return policy === "never" ? { ask: false, sandboxed: sandboxActive, refused: true } : { ask: true, sandboxed: sandboxActive && !escalate };
  if (policy === "never") return { ask: false, sandboxed: sandboxActive };
  if (facts.acceptedForSession) return { ask: false, sandboxed: sandboxActive && !escalate };
  if (policy === "untrusted") return { ask: !facts.knownSafe || escalate, sandboxed: sandboxActive && !escalate };
  return { ask: escalate, sandboxed: sandboxActive && !escalate };
}
