import path from "node:path";
import { isKnownSafeCommand } from "./knownSafe.js";
import { isShellName } from "./shells.js";
import { WRAPPER_ANALYZERS } from "./wrappers.js";
import type { ParsedScript } from "./shellTypes.js";

// Kept apart from ApprovalMemory, which every thread holds from its start, so the shell analysis
// this needs loads with the agent loop at the first turn rather than at start-up.

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
