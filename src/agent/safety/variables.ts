import type { ShellCommand, ShellWord } from "./shellTypes.js";

/** Parses a variable's command line into its commands. */
type ScriptParser = (script: string) => readonly ShellCommand[];

/** A variable assigned by a command (`NAME=value cmd`, `export NAME=value`, `env NAME=value`). */
export interface Assignment {
  readonly name: string;
  readonly value: ShellWord;
}

/** Variables whose value is a command line a program runs (git, ssh, pagers, editors, bash's own prompt hook). */
const COMMAND_VARIABLES = new Set([
  "GIT_SSH_COMMAND", "GIT_SSH", "GIT_EXTERNAL_DIFF", "GIT_PAGER", "PAGER", "GIT_EDITOR", "EDITOR", "VISUAL", "GIT_SEQUENCE_EDITOR",
  "GIT_ASKPASS", "SSH_ASKPASS", "SUDO_ASKPASS", "GIT_PROXY_COMMAND", "PROMPT_COMMAND", "MANPAGER", "LESSOPEN", "LESSCLOSE", "BROWSER",
]);
/**
 * Variables that change what runs in ways no parse follows: where programs are found (PATH, and
 * bash's default PATH, which ends in `.`, when it is unset), a script or library loaded first
 * (BASH_ENV, ENV, LD_PRELOAD and the other LD_ variables), functions a child bash imports
 * (BASH_FUNC_*), options a child bash takes (SHELLOPTS, BASHOPTS), where startup files are read
 * from (HOME for `bash -l`/`-i`, ZDOTDIR, XDG_CONFIG_HOME), git's config, repository and helper
 * programs (GIT_CONFIG*, GIT_DIR, GIT_WORK_TREE, GIT_COMMON_DIR, GIT_TEMPLATE_DIR, GIT_EXEC_PATH),
 * and the prompts bash expands, command substitutions included (PS0–PS4: `set -x` expands PS4).
 */
const UNKNOWABLE = new Set([
  "PATH", "BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "HOME", "ZDOTDIR", "XDG_CONFIG_HOME",
  "GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_TEMPLATE_DIR", "GIT_EXEC_PATH",
  "PS0", "PS1", "PS2", "PS3", "PS4",
]);
const UNKNOWABLE_PREFIXES = ["LD_", "BASH_FUNC_", "GIT_CONFIG"];

/** A word standing for the arguments a program adds to a command line it runs from a variable. */
export const UNKNOWN_ARGUMENTS: ShellWord = { text: "…", literal: false, splits: true };

/** Whether setting this variable can change what runs. */
export function isSensitiveVariable(name: string): boolean {
  return COMMAND_VARIABLES.has(name) || unknowable(name);
}

/**
 * Whether a word names, or holds, a variable that can change what runs: `PATH`, `r=PATH`, or
 * with option letters attached, `-vPATH`.
 */
export function mentionsSensitiveVariable(text: string): boolean {
  const names = (text.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []).map((token) => token.replace(/^[a-z]+(?=[A-Z_])/, ""));
  return names.some(isSensitiveVariable);
}

/**
 * What an assignment makes run: a command-line variable's literal value is parsed as a script
 * whose commands get more arguments (`GIT_SSH_COMMAND='git push' git fetch` runs `git push …`);
 * any other value of one, and any value of PATH, BASH_ENV, an LD_ variable…, cannot be known.
 */
export function assignmentCommands(assignment: Assignment, parse: ScriptParser): ShellCommand[] {
  const { name, value } = assignment;
  if (unknowable(name)) return [{ words: [], unknown: `it sets ${name}` }];
  if (!COMMAND_VARIABLES.has(name)) return [];
  if (!value.literal) return [{ words: [], unknown: `it sets ${name}, a command line, to a value that cannot be known` }];
  return parse(value.text).map((command) => (command.words.length > 0 ? { ...command, words: [...command.words, UNKNOWN_ARGUMENTS] } : command));
}

function unknowable(name: string): boolean {
  return UNKNOWABLE.has(name) || UNKNOWABLE_PREFIXES.some((prefix) => name.startsWith(prefix));
}
