import type { ShellWord } from "./shellTypes.js";

/** Shells of the POSIX family, whose `-c` scripts tree-sitter-bash reads as they do. */
const POSIX_SHELLS = new Set(["sh", "bash", "rbash", "dash", "ash", "hush", "zsh", "ksh", "ksh93", "mksh", "lksh", "pdksh", "oksh", "loksh", "yash", "posh"]);
/** Shells with a syntax of their own: their scripts are not bash's to read. */
const OTHER_SHELLS = new Set(["csh", "tcsh", "fish", "nu", "elvish", "xonsh", "pwsh", "rc", "es"]);
/** Long options that change nothing about where the script comes from (`--rcfile FILE` does: it runs FILE first). */
const LONG_FLAGS = new Set(["--login", "--noprofile", "--norc", "--posix", "--noediting", "--restricted", "--verbose"]);

/** Whether a program (by base name) is a shell. */
export function isShellName(name: string): boolean {
  return POSIX_SHELLS.has(name) || OTHER_SHELLS.has(name);
}

/**
 * The script a shell runs, when it is given with `-c`: the first operand after the options
 * (`bash -c -e 'x'` runs `x`). Single-letter options are flags except `-o`/`-O` (and `+o`/`+O`),
 * which take the next word. Without `-c`, or with `-s`, the shell reads its script from standard
 * input or a file, which nothing here can see: a problem.
 */
export function shellScript(name: string, args: readonly ShellWord[]): { readonly script: ShellWord } | { readonly problem: string } {
  if (OTHER_SHELLS.has(name)) return { problem: `${name} scripts are not bash` };
  let command = false;
  let i = 0;
  for (; i < args.length; i++) {
    const word = args[i]!;
    if (!word.literal) return { problem: `${word.text} may be an option of ${name}` };
    const text = word.text;
    if (text === "--" || text === "-") {
      i++;
      break;
    }
    if (text.startsWith("--")) {
      if (LONG_FLAGS.has(text)) continue;
      return { problem: `${name} ${text} is not an option it is known to take` };
    }
    if (!/^[-+][A-Za-z]+$/.test(text)) break;
    let values = 0;
    for (const letter of text.slice(1)) {
      if (letter === "s") return { problem: `${name} -s reads its script from standard input` };
      if (letter === "c" && text.startsWith("-")) command = true;
      if (letter === "o" || letter === "O") values++;
    }
    const taken = args.slice(i + 1, i + 1 + values);
    if (taken.length < values || taken.some((value) => value.splits)) return { problem: `an option of ${name} lacks its value` };
    i += values;
  }
  const operand = args[i];
  if (!command) return { problem: operand ? `${name} reads its script from a file` : `${name} reads its script from standard input` };
  if (!operand) return { problem: `${name} -c has no script` };
  return { script: operand };
}
