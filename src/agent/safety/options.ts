import type { ShellWord } from "./shellTypes.js";

/** Whether an option takes no value, a value (attached or the next word), or an optional value given only attached. */
type Arity = "none" | "required" | "optional";

interface OptionSpec {
  /** The option's first spelling, which a parsed option is named by (`-u` for `-u|--unset=`). */
  readonly name: string;
  readonly arity: Arity;
}

/** A program's options as its getopt reads them; see {@link grammar}. */
export interface Grammar {
  readonly short: ReadonlyMap<string, OptionSpec>;
  readonly long: ReadonlyMap<string, OptionSpec>;
  /** GNU permutation: options may follow operands, up to `--`. Otherwise options end at the first operand. */
  readonly permute: boolean;
  /** A word that is one option by itself, without a value (nice's `-5`, head's `-20`). */
  readonly numeric: RegExp | null;
  /** A word that ends the options and is the first operand (seq's `-1`). */
  readonly operandStart: RegExp | null;
}

/** Where a grammar departs from plain getopt. */
interface GrammarSettings {
  readonly permute?: boolean;
  readonly numeric?: RegExp;
  readonly operandStart?: RegExp;
}

/**
 * A grammar from entries that each list an option's spellings, `|`-separated: `-u|--unset=`.
 * A trailing `=` means the option takes a value (`-u NAME`, `-uNAME`, `--unset=NAME`,
 * `--unset NAME`); `=?` means an optional value, given only attached (`-iSUF`, `--color=WHEN`).
 * Long options must be spelt out: GNU's unambiguous abbreviations (`--unse`) are not in the
 * grammar, so they are unknown options, as is every option not listed.
 */
export function grammar(entries: readonly string[], settings: GrammarSettings = {}): Grammar {
  const short = new Map<string, OptionSpec>();
  const long = new Map<string, OptionSpec>();
  for (const entry of entries) {
    const arity: Arity = entry.endsWith("=?") ? "optional" : entry.endsWith("=") ? "required" : "none";
    const spellings = entry.replace(/=\??$/, "").split("|");
    const spec = { name: spellings[0]!, arity };
    for (const spelling of spellings) {
      if (spelling.startsWith("--")) long.set(spelling.slice(2), spec);
      else short.set(spelling.slice(1), spec);
    }
  }
  return { short, long, permute: settings.permute ?? false, numeric: settings.numeric ?? null, operandStart: settings.operandStart ?? null };
}

/** One option found in a command's words. */
export interface ParsedOption {
  /** Its first spelling in the grammar. */
  readonly name: string;
  readonly value: ShellWord | null;
  /** The index in the words just past the option and its value. */
  readonly end: number;
}

/** A command's options and operands, or why they cannot be known. */
export type ParsedArgs =
  | { readonly options: readonly ParsedOption[]; readonly operands: readonly ShellWord[] }
  | { readonly problem: string };

/**
 * Reads `args` as getopt_long would with `g`: bundled short options (`-ab`), attached values
 * (`-n5`, `--lines=5`), values in the next word, `--`. Without permutation the operands are every
 * word from the first operand on. An unknown option, a missing value, a value given to a flag,
 * or a word whose value is unknown where an option could be, is a problem: a caller cannot know
 * what the program does with its words.
 */
export function parseArgs(g: Grammar, args: readonly ShellWord[]): ParsedArgs {
  const options: ParsedOption[] = [];
  const operands: ShellWord[] = [];
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (!word.literal) {
      if (!mayBeOperand(word)) return { problem: `${word.text} may be an option` };
      if (word.splits) return { problem: `${word.text} may be several words` };
      operands.push(word);
      if (!g.permute) return { options, operands: [...operands, ...args.slice(i + 1)] };
      continue;
    }
    const text = word.text;
    if (text === "--") return { options, operands: [...operands, ...args.slice(i + 1)] };
    const isOperand = !text.startsWith("-") || text === "-" || g.operandStart?.test(text);
    if (isOperand) {
      if (!g.permute) return { options, operands: [...operands, ...args.slice(i)] };
      operands.push(word);
      continue;
    }
    if (g.numeric?.test(text)) {
      options.push({ name: text, value: null, end: i + 1 });
      continue;
    }
    const parsed = text.startsWith("--") ? longOption(g, args, i) : shortOptions(g, args, i);
    if ("problem" in parsed) return parsed;
    options.push(...parsed.options);
    i = parsed.end - 1;
  }
  return { options, operands };
}

/** The word starts with a character that is not `-` whatever it expands to (`a$X`, `./$DIR`). */
function mayBeOperand(word: ShellWord): boolean {
  return /^[A-Za-z0-9_./]/.test(word.text);
}

type Step = { readonly options: readonly ParsedOption[]; readonly end: number } | { readonly problem: string };

function longOption(g: Grammar, args: readonly ShellWord[], i: number): Step {
  const text = args[i]!.text;
  const equals = text.indexOf("=");
  const name = equals === -1 ? text.slice(2) : text.slice(2, equals);
  const spec = g.long.get(name);
  if (!spec) return { problem: `--${name} is not an option it is known to take` };
  if (equals !== -1) {
    if (spec.arity === "none") return { problem: `--${name} takes no value` };
    return { options: [{ name: spec.name, value: attached(text.slice(equals + 1)), end: i + 1 }], end: i + 1 };
  }
  if (spec.arity !== "required") return { options: [{ name: spec.name, value: null, end: i + 1 }], end: i + 1 };
  return separateValue(spec.name, args, i);
}

function shortOptions(g: Grammar, args: readonly ShellWord[], i: number): Step {
  const text = args[i]!.text;
  const options: ParsedOption[] = [];
  for (let k = 1; k < text.length; k++) {
    const spec = g.short.get(text[k]!);
    if (!spec) return { problem: `-${text[k]} is not an option it is known to take` };
    if (spec.arity === "none") {
      options.push({ name: spec.name, value: null, end: i + 1 });
      continue;
    }
    const rest = text.slice(k + 1);
    if (rest !== "" || spec.arity === "optional") {
      options.push({ name: spec.name, value: rest === "" ? null : attached(rest), end: i + 1 });
      return { options, end: i + 1 };
    }
    const value = separateValue(spec.name, args, i);
    if ("problem" in value) return value;
    return { options: [...options, ...value.options], end: value.end };
  }
  return { options, end: i + 1 };
}

function separateValue(name: string, args: readonly ShellWord[], i: number): Step {
  const value = args[i + 1];
  if (!value) return { problem: `${name} needs a value` };
  if (value.splits) return { problem: `the value of ${name} may be several words` };
  return { options: [{ name, value, end: i + 2 }], end: i + 2 };
}

/** A value attached to a literal option word is literal. */
function attached(text: string): ShellWord {
  return { text, literal: true, splits: false };
}
