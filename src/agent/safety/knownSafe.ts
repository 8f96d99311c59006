import type { ParsedScript } from "./shellParser.js";

// Commands that only read and print, whatever their arguments (Codex's list, Linux).
const READ_ONLY = new Set([
  "cat", "cd", "cut", "echo", "expr", "false", "grep", "head", "id", "ls", "nl", "paste", "pwd", "rev", "seq", "stat",
  "tail", "tr", "true", "uname", "wc", "which", "whoami", "numfmt", "tac",
]);
// find's actions that run commands, delete, or write file names to a file.
const UNSAFE_FIND = new Set(["-exec", "-execdir", "-ok", "-okdir", "-delete", "-fls", "-fprint", "-fprint0", "-fprintf"]);
// uniq's options that take a value as the next word.
const UNIQ_VALUE_OPTIONS = new Set(["-f", "-s", "-w"]);

/**
 * Whether a script only reads, so `untrusted` runs it without asking: the script must be plain
 * (see {@link ParsedScript.plain}) and each of its commands known-safe on its own.
 */
export function isKnownSafeScript(parsed: ParsedScript): boolean {
  return parsed.plain !== null && parsed.plain.length > 0 && parsed.plain.every(isKnownSafeCommand);
}

/**
 * Codex's known-safe commands: a fixed list of readers, and a few more whose arguments decide:
 * `find` without actions that execute, delete or write, `rg` without external programs or
 * decompression, `base64` without an output file, `sed -n Np`, and `uniq` with at most an input
 * file (its second operand is an output file). Anything else, `git`, `env CMD`, `sort` and `tree`
 * included, is not known-safe. Only bare program names count: `./ls` could be anything.
 */
export function isKnownSafeCommand(argv: readonly string[]): boolean {
  const [program, ...args] = argv;
  if (program === undefined || program.includes("/")) return false;
  if (READ_ONLY.has(program)) return true;
  switch (program) {
    case "find":
      return !args.some((arg) => UNSAFE_FIND.has(arg));
    case "rg":
      return !args.some(
        (arg) =>
          arg === "--search-zip" ||
          /^-[A-Za-z]*z/.test(arg) ||
          ["--pre", "--hostname-bin", "--pre-glob"].some((option) => arg === option || arg.startsWith(`${option}=`)),
      );
    case "base64":
      return !args.some((arg) => arg === "--output" || arg.startsWith("--output=") || /^-[A-Za-z]*o/.test(arg));
    case "sed":
      return argv.length <= 4 && args[0] === "-n" && /^(\d+,)?\d+p$/.test(args[1] ?? "");
    case "uniq":
      return uniqOperands(args) <= 1;
    default:
      return false;
  }
}

/** How many file operands `uniq` gets (the second one is written). */
function uniqOperands(args: readonly string[]): number {
  let operands = 0;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--") return operands + args.length - i - 1;
    if (UNIQ_VALUE_OPTIONS.has(arg)) i++;
    else if (arg === "-" || !arg.startsWith("-")) operands++;
  }
  return operands;
}
