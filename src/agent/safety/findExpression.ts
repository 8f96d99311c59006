import type { ShellWord } from "./shellTypes.js";

// GNU find 4.9's primaries (options, tests and actions) and how many words follow each.
const ARITY = new Map<string, number>([
  ...["-daystart", "-depth", "-d", "-follow", "-help", "--help", "-ignore_readdir_race", "-noignore_readdir_race", "-mount", "-noleaf", "-version", "--version", "-warn", "-nowarn", "-xdev"].map((name) => [name, 0] as const),
  ...["-empty", "-executable", "-false", "-nogroup", "-nouser", "-readable", "-true", "-writable"].map((name) => [name, 0] as const),
  ...["-delete", "-ls", "-print", "-print0", "-prune", "-quit"].map((name) => [name, 0] as const),
  ...["-maxdepth", "-mindepth", "-regextype", "-files0-from"].map((name) => [name, 1] as const),
  ...[
    "-amin", "-anewer", "-atime", "-cmin", "-cnewer", "-context", "-ctime", "-fstype", "-gid", "-group", "-ilname", "-iname", "-inum", "-ipath",
    "-iregex", "-iwholename", "-links", "-lname", "-mmin", "-mtime", "-name", "-newer", "-path", "-perm", "-regex", "-samefile", "-size", "-type",
    "-uid", "-used", "-user", "-wholename", "-xtype",
  ].map((name) => [name, 1] as const),
  ...["-fls", "-fprint", "-fprint0", "-printf"].map((name) => [name, 1] as const),
  ["-fprintf", 2],
]);
const OPERATORS = new Set(["(", ")", "!", ",", "-not", "-a", "-and", "-o", "-or"]);
/** Primaries that run the words after them as a command, up to `;` (or `{} +`). */
const EXEC = new Set(["-exec", "-execdir", "-ok", "-okdir"]);

/** A primary of a find expression, with the words it takes (for an exec primary, its command). */
export interface FindPrimary {
  readonly name: string;
  readonly args: readonly ShellWord[];
}

/**
 * Reads find's words as GNU find does: options before the paths (`-H`, `-L`, `-P`, `-D LIST`,
 * `-O3`), the paths, then the expression. Each primary takes its own number of words, so
 * `-name -exec` is a name test, never an action. An unknown primary, a missing argument, or a
 * word whose value is unknown where a primary could be is a problem.
 */
export function parseFind(args: readonly ShellWord[]): { readonly primaries: readonly FindPrimary[] } | { readonly problem: string } {
  let i = 0;
  for (; i < args.length && args[i]!.literal && /^-([HLP]|D|O\d*)$/.test(args[i]!.text); i++) if (args[i]!.text === "-D") i++;
  const primaries: FindPrimary[] = [];
  for (; i < args.length; i++) {
    const word = args[i]!;
    if (!word.literal) return { problem: `${word.text} may be part of find's expression` };
    if (startsExpression(word.text)) break;
  }
  for (; i < args.length; i++) {
    const word = args[i]!;
    if (!word.literal) return { problem: `${word.text} may be part of find's expression` };
    if (OPERATORS.has(word.text)) continue;
    if (EXEC.has(word.text)) {
      const end = execEnd(args, i + 1);
      // A word split into several could hold a `;` and a primary of its own.
      if (args.slice(i + 1, end).some((arg) => arg.splits)) return { problem: `the command of ${word.text} may be several words` };
      primaries.push({ name: word.text, args: args.slice(i + 1, end) });
      i = end;
      continue;
    }
    const arity = /^-newer[aBcm][aBcmt]$/.test(word.text) ? 1 : ARITY.get(word.text);
    if (arity === undefined) return { problem: `${word.text} is not a primary find is known to take` };
    const values = args.slice(i + 1, i + 1 + arity);
    if (values.length < arity) return { problem: `${word.text} needs ${arity} argument(s)` };
    if (values.some((value) => value.splits)) return { problem: `an argument of ${word.text} may be several words` };
    primaries.push({ name: word.text, args: values });
    i += arity;
  }
  return { primaries };
}

/** Whether a word begins find's expression (as GNU find decides where the paths end). */
function startsExpression(text: string): boolean {
  return (text.startsWith("-") && text !== "-") || text === "(" || text === ")" || text === "!" || text === ",";
}

/** The index of the `;` ending an exec primary's command, or of the `+` right after a `{}` (or the end). */
function execEnd(args: readonly ShellWord[], from: number): number {
  for (let k = from; k < args.length; k++) {
    const text = args[k]!.text;
    if (text === ";" || (text === "+" && k > from && args[k - 1]!.text === "{}")) return k;
  }
  return args.length;
}
