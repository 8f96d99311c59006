import type { ApprovalRule } from "../../config/schema.js";
import type { AskForApproval, SandboxPolicy } from "../../protocol/policy.js";
import { commandVerdict, pathVerdict, type RuleVerdict } from "./approvalRules.js";
import { isKnownSafeCommand, isKnownSafeRun } from "./knownSafe.js";
import { cleanSearchPath } from "./programTrust.js";
import type { ParsedScript } from "./shellTypes.js";

/**
 * The one place that decides whether a command runs, is asked about or is refused, and whether a
 * patch is written, asked about or refused. It combines the approval policy, the `[[approval_rules]]`
 * of config and those learned from the user, known-safe commands, escalation requests and the
 * writable roots. Tools act on its answer and decide nothing themselves.
 */

/** What to do with a command. `sandboxed: false` only ever follows a yes, or full access. */
export type CommandDecision =
  | { readonly kind: "run"; readonly sandboxed: boolean }
  | { readonly kind: "ask"; readonly sandboxed: boolean }
  | { readonly kind: "refuse"; readonly message: string };

/** Everything a command decision depends on. */
export interface CommandFacts {
  readonly policy: AskForApproval;
  readonly sandbox: SandboxPolicy;
  readonly argv: readonly string[];
  readonly parsed: ParsedScript;
  /** The model asked to run outside the sandbox (`sandbox_permissions: "require_escalated"`). */
  readonly escalate: boolean;
  /** `[[approval_rules]]` from config. */
  readonly rules: readonly ApprovalRule[];
  /**
   * `allow` rules the user added during this thread (`acceptWithExecpolicyAmendment`); for an
   * escalated command, only those the user granted on an escalation request.
   */
  readonly learned: readonly ApprovalRule[];
  /** The user accepted this exact command, with this escalation, for the session. */
  readonly acceptedForSession: boolean;
  /** The PATH the command will run with; null when unknown (a login shell's profile will set it). */
  readonly searchPath: string | null;
  /** Absolute directories the model can write (a program there may be its own script). */
  readonly modelWritable: readonly string[];
  /** Where relative program paths resolve: the command's working directory. */
  readonly cwd: string;
}

/** Codex's refusal of an escalation request under `never` (the model reads it). */
export const NEVER_ESCALATE =
  "approval policy is Never; reject command — you cannot ask for escalated permissions if the approval policy is Never";

/** Whether commands under this policy run in our sandbox (read-only and workspace-write). */
export function sandboxActive(sandbox: SandboxPolicy): boolean {
  return sandbox.type === "readOnly" || sandbox.type === "workspaceWrite";
}

/**
 * Decides a command. A `deny` rule matching known words refuses. What a command runs cannot be
 * known (a script it reads from a file, a program the model can write, PATH set…) while a `deny`
 * rule is in force: asked, and refused where the policy may not ask about rules. An escalation
 * (only meaningful under an active sandbox) is asked unless the user already said yes to it (for
 * the session, or as a prefix they allowed on an escalation request), and refused where the
 * policy may not ask. An `ask` rule asks (refused under `never`). An `allow` rule, or the user's
 * earlier yes, runs it sandboxed without asking. Otherwise `untrusted` asks for anything not
 * known-safe, and the other policies run it sandboxed.
 */
export function decideCommand(facts: CommandFacts): CommandDecision {
  // Known-safe commands beside allowed ones count as allowed, for sandboxed runs only.
  const harmless = (words: readonly string[]) => cleanSearchPath(facts.searchPath, facts.modelWritable) && isKnownSafeCommand(words);
  const verdict = uncleanPathVerdict(commandVerdict(facts.rules, facts, harmless), facts);
  if (verdict?.action === "deny" && verdict.unknown === null) return { kind: "refuse", message: `${ruleText(verdict)} forbids this command; it was not run.` };
  // A deny rule that may apply: what runs cannot be known, so only the user can say.
  const mayBeDenied = verdict?.action === "deny";
  if (mayBeDenied && !mayAskForRules(facts.policy)) {
    return { kind: "refuse", message: `${ruleText(verdict)} is in force and what this command runs cannot be known (${verdict.unknown}); the approval policy does not allow asking, so it was not run.` };
  }
  const sandboxed = sandboxActive(facts.sandbox);
  if (facts.escalate && sandboxed) {
    if (facts.policy === "never") return { kind: "refuse", message: NEVER_ESCALATE };
    if (typeof facts.policy === "object" && !facts.policy.granular.sandbox_approval) {
      return { kind: "refuse", message: "approval policy does not allow sandbox escalation requests; reject command — run it within the sandbox" };
    }
    // The user's own yes to this escalation, for the session or as a prefix rule, stands; a config rule's does not.
    // Outside the sandbox every command needs that yes: a known-safe `cat` may read what the sandbox hides.
    const userSaidYes = !mayBeDenied && (facts.acceptedForSession || commandVerdict(facts.learned, facts)?.action === "allow");
    return userSaidYes ? { kind: "run", sandboxed: false } : { kind: "ask", sandboxed: false };
  }
  if (mayBeDenied) return { kind: "ask", sandboxed };
  if (verdict?.action === "ask") {
    if (!mayAskForRules(facts.policy)) return { kind: "refuse", message: `${ruleText(verdict)} needs the user's approval, and the approval policy is never; it was not run.` };
    return { kind: "ask", sandboxed };
  }
  if (verdict?.action === "allow" || facts.acceptedForSession || commandVerdict(facts.learned, facts, harmless)?.action === "allow") return { kind: "run", sandboxed };
  if (facts.policy === "untrusted" && !isKnownSafeRun(facts)) return { kind: "ask", sandboxed };
  return { kind: "run", sandboxed };
}

/** What to do with a patch. */
export type PatchDecision =
  | { readonly kind: "write" }
  | { readonly kind: "ask"; readonly reason: string | null }
  | { readonly kind: "refuse"; readonly message: string; readonly status: "declined" | "failed" };

/** Everything a patch decision depends on. */
export interface PatchFacts {
  readonly policy: AskForApproval;
  readonly rules: readonly ApprovalRule[];
  /** The files written, relative to the thread's cwd (what path globs match). */
  readonly touched: readonly string[];
  /** The files written outside the writable roots, or inside a protected path (`.git`, `.agents`, our home). */
  readonly outside: readonly string[];
  /** The user accepted a patch to these same files for the session. */
  readonly acceptedForSession: boolean;
}

/**
 * Decides a patch. A `deny` rule refuses. Writing outside the writable roots, an `ask` rule, or
 * any patch under `untrusted` (unless an `allow` rule covers every file) needs a yes; the user's
 * earlier yes for the same files stands in for it, except against an `ask` rule. Where the policy
 * may not ask, what needs a yes is refused.
 */
export function decidePatch(facts: PatchFacts): PatchDecision {
  const verdict = pathVerdict(facts.rules, facts.touched);
  if (verdict?.action === "deny") {
    return { kind: "refuse", status: "declined", message: `${patchRuleText(verdict)} forbids writing ${facts.touched.join(", ")}; the files were not changed.` };
  }
  const ruleAsks = verdict?.action === "ask";
  const needsYes = ruleAsks || facts.outside.length > 0 || (facts.policy === "untrusted" && verdict?.action !== "allow");
  if (!needsYes || (!ruleAsks && facts.acceptedForSession)) return { kind: "write" };
  const outsideText = `writing ${facts.outside.join(", ")} is outside the writable roots`;
  if (facts.policy === "never") {
    const why = facts.outside.length > 0 ? outsideText : `approval rule ${verdict!.index} needs the user's approval`;
    return { kind: "refuse", status: "failed", message: `${why}, and the approval policy is never.` };
  }
  if (typeof facts.policy === "object" && facts.outside.length > 0 && !facts.policy.granular.sandbox_approval) {
    return { kind: "refuse", status: "failed", message: `${outsideText}, and the approval policy does not allow asking for it; the files were not changed.` };
  }
  return { kind: "ask", reason: facts.outside.length > 0 ? `The patch writes outside the writable roots: ${facts.outside.join(", ")}` : null };
}

/**
 * With a deny rule in force and a PATH that can find programs the model wrote (an entry in the
 * workspace, such as `node_modules/.bin`, a relative one, or a PATH not known), any bare program
 * name may be the model's script: the first deny rule may apply to every command.
 */
function uncleanPathVerdict(verdict: RuleVerdict | null, facts: CommandFacts): RuleVerdict | null {
  if (verdict?.action === "deny" || cleanSearchPath(facts.searchPath, facts.modelWritable)) return verdict;
  const index = facts.rules.findIndex((rule) => rule.action === "deny");
  if (index === -1) return verdict;
  const why = facts.searchPath === null ? "its PATH is not known" : "its PATH can find programs the model can write";
  return { action: "deny", index: index + 1, rule: facts.rules[index]!, unknown: why };
}

function mayAskForRules(policy: AskForApproval): boolean {
  return policy !== "never" && (typeof policy !== "object" || policy.granular.rules);
}

// Patch messages name a rule by its number and description only (as they always have).
function patchRuleText(verdict: RuleVerdict): string {
  return `approval rule ${verdict.index}${verdict.rule.description ? ` (${verdict.rule.description})` : ""}`;
}

function ruleText(verdict: RuleVerdict): string {
  return `approval rule ${verdict.index} (${verdict.action}${verdict.rule.description ? `: ${verdict.rule.description}` : ""})`;
}
