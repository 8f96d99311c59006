import path from "node:path";
import type { ApprovalRule } from "../config/schema.js";
import { isKnownSafeCommand } from "./safety/knownSafe.js";
import { isShellName } from "./safety/shells.js";
import { WRAPPER_ANALYZERS } from "./safety/wrappers.js";
import type { ParsedScript } from "./safety/shellTypes.js";

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

/**
 * The prefix to offer for "don't ask again", as Codex picks it: of a plain script, the words of its
 * first command that is not known-safe (the one that needs the yes; the others then run unasked
 * in the sandbox, as the rules check each command), or its only command; else the whole argv.
 * Never a program that runs what its words say (a shell, `env`, `sudo`, `xargs`…): allowing it
 * would allow anything.
 */
export function proposedPrefix(argv: readonly string[], parsed: ParsedScript): string[] {
  const commands = (parsed.plain ?? []).filter((words) => words.length > 0);
  const first = commands.find((words) => !isKnownSafeCommand(words)) ?? (commands.length === 1 ? commands[0] : undefined);
  return first && !runsItsWords(first[0]!) ? [...first] : [...argv];
}

/**
 * Programs besides shells and wrappers that run code their words give, here or in options a
 * prefix rule would let the model append (`find -exec`, `sed -e 'e …'`, `rg --pre`, `tar
 * --to-command`, `make --eval`, `npm --node-options`): a prefix of them allows too much.
 */
const RUNNERS = new Set(["eval", "exec", "source", ".", "xargs", "parallel", "find", "sed", "rg", "tar", "make", "npm", "npx", "pnpm", "yarn", "toybox", "busybox", "deno", "bun"]);
/** Interpreters, also by versioned name (`python3.12`, `nodejs`, `gawk`). */
const INTERPRETER = /^(python|pypy|perl|ruby|php|lua|node|nodejs|[gmn]?awk)[\d.]*$/;

function runsItsWords(program: string): boolean {
  const name = path.basename(program);
  return isShellName(name) || Object.hasOwn(WRAPPER_ANALYZERS, name) || RUNNERS.has(name) || INTERPRETER.test(name);
}
