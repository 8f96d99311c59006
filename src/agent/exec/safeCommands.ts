import { splitWords } from "./shellWords.js";

const ALWAYS_SAFE = new Set([
  "ls", "cat", "head", "tail", "wc", "grep", "rg", "pwd", "echo", "true", "false", "nl", "cut", "sort", "uniq",
  "tr", "which", "whoami", "id", "uname", "date", "stat", "file", "basename", "dirname", "realpath", "tree", "du", "df", "env", "printenv",
]);
const SAFE_GIT = new Set(["status", "log", "diff", "show", "branch", "rev-parse", "ls-files", "blame"]);
const UNSAFE_FIND = new Set(["-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"]);

/**
 * Whether a command only reads, so `untrusted` runs it without asking: a single simple command
 * (no pipes, redirections or substitutions) from a fixed list, `find` without actions that
 * write or execute, `sed -n`, and read-only git subcommands.
 */
export function isKnownSafe(script: string): boolean {
  const words = splitWords(script.trim());
  if (!words || words.length === 0) return false;
  const [program, ...args] = words as [string, ...string[]];
  if (ALWAYS_SAFE.has(program)) return !(program === "rg" && args.some((arg) => arg.startsWith("--pre")));
  if (program === "find") return !args.some((arg) => UNSAFE_FIND.has(arg));
  if (program === "sed") return args[0] === "-n" && /^\d+(,\d+)?p$/.test(args[1] ?? "") && args.length <= 3;
  if (program === "git") return SAFE_GIT.has(args[0] ?? "") && !args.some((arg) => arg.startsWith("--output"));
  return false;
}
