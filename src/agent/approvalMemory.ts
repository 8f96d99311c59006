import type { ApprovalRule } from "../config/schema.js";

/**
 * What the user approved for the rest of a thread's life in memory: exact commands and paths
 * (`acceptForSession`), and `allow` rules learned from `acceptWithExecpolicyAmendment`, kept in
 * the same form as `[[approval_rules]]` in config (the decision module reads both).
 */
export class ApprovalMemory {
  private readonly keys = new Set<string>();
  private readonly learned: { readonly rule: ApprovalRule; readonly escalated: boolean }[] = [];

  /** Whether `key` (a command or a patch's paths) was accepted for the session. */
  has(key: string): boolean {
    return this.keys.has(key);
  }

  /** Remembers `key` as accepted for the session. */
  add(key: string): void {
    this.keys.add(key);
  }

  /**
   * Allows, without asking, every command whose words start with `prefix`; `escalated`: the user
   * granted it on an escalation request, so it covers running outside the sandbox too.
   */
  allowPrefix(prefix: readonly string[], escalated: boolean): void {
    if (prefix.length > 0) this.learned.push({ rule: { action: "allow", command: [...prefix] }, escalated });
  }

  /** The `allow` rules learned so far; for an escalated command, only those granted on an escalation. */
  rules(escalated: boolean): readonly ApprovalRule[] {
    return this.learned.filter((entry) => entry.escalated || !escalated).map((entry) => entry.rule);
  }
}
