import type { ApprovalRule } from "../config/schema.js";
import { commandVerdict } from "./approvalRules.js";
import { splitWords } from "./exec/shellWords.js";

/**
 * What the user approved for the rest of a thread's life in memory: exact commands and paths
 * (`acceptForSession`), and `allow` rules learned from `acceptWithExecpolicyAmendment`, kept in
 * the same form as `[[approval_rules]]` in config.
 */
export class ApprovalMemory {
  private readonly keys = new Set<string>();
  private readonly learned: ApprovalRule[] = [];

  /** Whether `key` (a command or a patch's paths) was accepted for the session. */
  has(key: string): boolean {
    return this.keys.has(key);
  }

  /** Remembers `key` as accepted for the session. */
  add(key: string): void {
    this.keys.add(key);
  }

  /** Allows, without asking, every command whose words start with `prefix`. */
  allowPrefix(prefix: readonly string[]): void {
    if (prefix.length > 0) this.learned.push({ action: "allow", command: [...prefix] });
  }

  /** Whether a learned rule allows the command (see {@link commandVerdict} for compound scripts). */
  allowsCommand(argv: readonly string[], script: string): boolean {
    return commandVerdict(this.learned, argv, script)?.action === "allow";
  }
}

/** The prefix to offer for "don't ask again": the script's words when it is one simple command, else the whole argv. */
export function proposedPrefix(argv: readonly string[], script: string): string[] {
  const words = splitWords(script.trim());
  return words && words.length > 0 ? words : [...argv];
}
