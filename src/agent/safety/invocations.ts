import path from "node:path";
import { parseFind } from "./findExpression.js";
import { gitRuns } from "./gitCommands.js";
import { runs, unknown, type Analysis, type Analyzer, type NestedParser, type Run } from "./runs.js";
import type { ShellCommand, ShellWord } from "./shellTypes.js";
import { isShellName, shellScript } from "./shells.js";
import { assignmentCommands, isSensitiveVariable, mentionsSensitiveVariable, type Assignment } from "./variables.js";
import { WRAPPER_ANALYZERS } from "./wrappers.js";

/** A simple command as written: its words, and the variables assigned in front of it (`NAME=value cmd`). */
export interface WrittenCommand {
  readonly words: readonly ShellWord[];
  readonly assignments: readonly Assignment[];
}

// Wrappers inside wrappers deeper than this are not followed: what runs is unknown.
const MAX_WRAPPERS = 16;
// Builtins that assign variables named by their words (`read PATH`, `printf -v PATH`, `unset PATH`).
const NAMING_BUILTINS = new Set(["read", "mapfile", "readarray", "getopts", "let", "unset", "wait"]);
// Builtins that declare variables and functions.
const DECLARATIONS = new Set(["export", "declare", "typeset", "local", "readonly"]);

const ANALYZERS: Readonly<Record<string, Analyzer>> = {
  ...WRAPPER_ANALYZERS,
  git: gitRuns,
  find: findRuns,
  eval: (args) => {
    const words = args[0]?.literal && args[0].text === "--" ? args.slice(1) : args;
    if (words.length === 0) return null;
    if (words.some((word) => !word.literal)) return unknown("eval runs words of unknown value");
    return runs({ kind: "script", script: { text: words.map((word) => word.text).join(" "), literal: true, splits: false } });
  },
  // `trap ACTION SIGNAL…` runs ACTION later, in this shell; `trap -p`/`-l` only print.
  trap: (args) => {
    const words = args[0]?.literal && args[0].text === "--" ? args.slice(1) : args;
    if (words.length === 0 || (words[0]!.literal && /^-[lp]+$/.test(words[0]!.text))) return null;
    return runs({ kind: "script", script: words[0]! });
  },
  source: () => unknown("source runs a script file"),
  ".": () => unknown(". runs a script file"),
  alias: () => unknown("alias redefines what a name runs"),
  fc: () => unknown("fc runs commands from the history"),
  compgen: () => unknown("compgen can run a command or function"),
  complete: () => unknown("complete can run a command or function"),
  bind: () => unknown("bind can run a command"),
  enable: (args) => (args.some((word) => !word.literal || /^-[a-z]*f/.test(word.text)) ? unknown("enable -f loads a builtin from a shared object") : null),
  hash: (args) => (args.some((word) => !word.literal || /^-[a-z]*p/.test(word.text)) ? unknown("hash -p sets the program a name runs") : null),
  printf: (args) => {
    const at = args.findIndex((word) => !word.literal || word.text.startsWith("-v"));
    if (at === -1) return null;
    const name = args[at]!.text === "-v" ? args[at + 1] : args[at];
    return !name || !name.literal || mentionsSensitiveVariable(name.text) ? unknown("printf -v sets a variable that matters") : null;
  },
  cd: () => ({ runs: [], movesDirectory: true }),
  pushd: () => ({ runs: [], movesDirectory: true }),
  popd: () => ({ runs: [], movesDirectory: true }),
  ...Object.fromEntries([...NAMING_BUILTINS].map((name) => [name, (args: readonly ShellWord[]) => namingRuns(name, args)])),
  ...Object.fromEntries([...DECLARATIONS].map((name) => [name, (args: readonly ShellWord[]) => declarationRuns(name, args)])),
};

/**
 * Every command a simple command runs, as far as its words tell: the command itself; what it
 * runs through a wrapper (`env`, `sudo`, `xargs`…), recursively; `bash -c`, `eval` and `trap`
 * scripts, parsed; the commands of `find -exec`; git's subcommand; the command lines in
 * variables it sets. Where that cannot be known, a command says why (its `unknown`).
 */
export function invocations(command: WrittenCommand, parse: NestedParser): ShellCommand[] {
  const found: ShellCommand[] = [];
  for (const assignment of command.assignments) found.push(...assignmentCommands(assignment, (script) => parse(script).commands));
  // `{NAME}>file` stores a file descriptor's number in NAME (tree-sitter reads it as a word): PATH=10 searches ./10.
  const descriptor = command.words.find((word) => word.literal && /^\{\w+\}$/.test(word.text) && isSensitiveVariable(word.text.slice(1, -1)));
  if (descriptor) found.push({ words: command.words, unknown: `${descriptor.text} sets ${descriptor.text.slice(1, -1)} to a file descriptor's number` });
  unwrap(command.words, parse, 0, found);
  return found;
}

function unwrap(words: readonly ShellWord[], parse: NestedParser, depth: number, found: ShellCommand[]): void {
  if (words.length === 0) return;
  const program = words[0]!;
  if (!program.literal) {
    found.push({ words, unknown: `its program is named by ${program.text}` });
    return;
  }
  const analysis = analyze(path.basename(program.text), words.slice(1), parse);
  found.push(analysis?.movesDirectory ? { words, unknown: null, movesDirectory: true } : { words, unknown: null });
  if (!analysis) return;
  for (const assignment of analysis.assignments ?? []) found.push(...assignmentCommands(assignment, (script) => parse(script).commands));
  for (const run of analysis.runs) {
    if (run.kind === "command" && depth >= MAX_WRAPPERS) found.push({ words: run.words, unknown: "it nests wrappers too deeply to follow" });
    else if (run.kind === "command") unwrap(run.words, parse, depth + 1, found);
    else if (run.kind === "same") found.push({ words: run.words, unknown: null });
    else if (run.kind === "unknown") found.push({ words, unknown: run.reason });
    else found.push(...scriptCommands(run, parse));
  }
}

function analyze(name: string, args: readonly ShellWord[], parse: NestedParser): Analysis | null {
  if (isShellName(name)) {
    const script = shellScript(name, args);
    return "problem" in script ? unknown(script.problem) : runs({ kind: "script", script: script.script });
  }
  return Object.hasOwn(ANALYZERS, name) ? ANALYZERS[name]!(args, parse) : null;
}

/** The commands of a script a program runs. */
function scriptCommands(run: Extract<Run, { kind: "script" }>, parse: NestedParser): readonly ShellCommand[] {
  return run.script.literal ? parse(run.script.text).commands : [{ words: [], unknown: `it runs a script of unknown value, ${run.script.text}` }];
}

/**
 * The commands `find -exec`/`-execdir`/`-ok`/`-okdir` run, `{}` standing for a file name. A
 * relative program under `-execdir` runs from each file's directory, so it cannot be known.
 */
function findRuns(args: readonly ShellWord[]): Analysis | null {
  const parsed = parseFind(args);
  if ("problem" in parsed) return unknown(`find: ${parsed.problem}`);
  const found: Run[] = [];
  for (const primary of parsed.primaries) {
    if (!["-exec", "-execdir", "-ok", "-okdir"].includes(primary.name) || primary.args.length === 0) continue;
    const words = primary.args.map((word) => (word.text.includes("{}") ? { text: word.text, literal: false, splits: false } : word));
    const program = words[0]!.text;
    if (primary.name.endsWith("dir") && program.includes("/") && !program.startsWith("/")) found.push({ kind: "unknown", reason: `find ${primary.name} runs ${program} from each file's directory` });
    found.push({ kind: "command", words });
  }
  return { runs: found };
}

/** `read NAME`, `mapfile -C CALLBACK`, `unset NAME`…: unknown when a name may be one that matters, or a callback runs. */
function namingRuns(name: string, args: readonly ShellWord[]): Analysis | null {
  if ((name === "mapfile" || name === "readarray") && args.some((word) => !word.literal || /^-[a-zA-Z]*C/.test(word.text))) return unknown(`${name} -C runs a callback`);
  const named = args.find((word) => !word.literal || mentionsSensitiveVariable(word.text));
  return named ? unknown(`${name} may set ${named.text}`) : null;
}

/**
 * `export`/`declare`/`typeset`/`local`/`readonly`: their `NAME=value` words are assignments;
 * exporting a function (`export -f`, `declare -fx`) gives it to child shells, unknown; so is a
 * bare name or nameref (`declare -n`) that matters, and a word whose name part is unknown.
 */
function declarationRuns(name: string, args: readonly ShellWord[]): Analysis | null {
  const flags = args.filter((word) => word.literal && /^[-+]/.test(word.text)).map((word) => word.text).join("");
  if (flags.includes("f") && (name === "export" || flags.includes("x"))) return unknown(`${name} exports a function`);
  const assignments: Assignment[] = [];
  for (const word of args) {
    if (word.literal && /^[-+]/.test(word.text)) continue;
    const assignment = /^([A-Za-z_][A-Za-z0-9_]*)(\[[^\]]*\])?\+?=/.exec(word.text);
    if (!assignment) {
      if (!word.literal || isSensitiveVariable(word.text)) return unknown(`${name} ${word.text} may change a variable that matters`);
      continue;
    }
    const value = word.text.slice(assignment[0].length);
    if (flags.includes("n") && mentionsSensitiveVariable(value)) return unknown(`${name} -n makes a name refer to a variable that matters`);
    assignments.push({ name: assignment[1]!, value: word.literal ? { text: value, literal: true, splits: false } : { text: value, literal: false, splits: false } });
  }
  return { runs: [], assignments };
}
