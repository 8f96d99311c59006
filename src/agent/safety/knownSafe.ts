import { parseFind } from "./findExpression.js";
import { grammar, parseArgs, type Grammar } from "./options.js";
import { argvProblem, cleanSearchPath, type ProgramContext } from "./programTrust.js";
import type { ParsedScript, ShellWord } from "./shellTypes.js";

/** What known-safe depends on besides the words: the tool's argv and where programs are found. */
export interface KnownSafeFacts extends ProgramContext {
  readonly argv: readonly string[];
  readonly parsed: ParsedScript;
  /** The PATH the command runs with; null when unknown. */
  readonly searchPath: string | null;
}

type Check = (args: readonly ShellWord[]) => boolean;

/** Any arguments: the command only prints them or computes with them (bash's own builtins, and expr). */
const ANY: Check = () => true;
/** The known options of `g`, and at most `operands` operands. */
const options = (g: Grammar, operands = Infinity): Check => (args) => {
  const parsed = parseArgs(g, args);
  return !("problem" in parsed) && parsed.operands.length <= operands;
};
/** A GNU program's grammar: options may follow operands (getopt permutes them), `--help` and `--version`. */
const gnu = (entries: readonly string[], settings: { numeric?: RegExp; operandStart?: RegExp } = {}) =>
  grammar([...entries, "--help", "--version"], { permute: true, ...settings });

// find's primaries that run a command, delete, or write to a file.
const UNSAFE_FIND = new Set(["-exec", "-execdir", "-ok", "-okdir", "-delete", "-fls", "-fprint", "-fprint0", "-fprintf"]);

/**
 * Codex's known-safe commands, each with the grammar of the options it may be given (GNU
 * coreutils 9, grep 3, findutils 4.9, util-linux rev, debianutils which, ripgrep 14). None of the
 * options listed writes a file or runs a program; any option not listed (a long option
 * abbreviated, `--expression=` for `sed`, `--pre` for `rg`) is not known-safe.
 */
const KNOWN_SAFE: Readonly<Record<string, Check>> = {
  cd: ANY,
  echo: ANY,
  expr: ANY,
  false: ANY,
  pwd: ANY,
  true: ANY,
  cat: options(gnu(["-A|--show-all", "-b|--number-nonblank", "-e", "-E|--show-ends", "-n|--number", "-s|--squeeze-blank", "-t", "-T|--show-tabs", "-u", "-v|--show-nonprinting"])),
  cut: options(gnu(["-b|--bytes=", "-c|--characters=", "-d|--delimiter=", "-f|--fields=", "-n", "--complement", "-s|--only-delimited", "--output-delimiter=", "-z|--zero-terminated"])),
  grep: options(
    gnu([
      "-E|--extended-regexp", "-F|--fixed-strings", "-G|--basic-regexp", "-P|--perl-regexp", "-e|--regexp=", "-f|--file=", "-i|-y|--ignore-case",
      "--no-ignore-case", "-w|--word-regexp", "-x|--line-regexp", "-z|--null-data", "-s|--no-messages", "-v|--invert-match", "-V", "-m|--max-count=",
      "-b|--byte-offset", "-n|--line-number", "--line-buffered", "-H|--with-filename", "-h|--no-filename", "--label=", "-o|--only-matching",
      "-q|--quiet|--silent", "--binary-files=", "-a|--text", "-I", "-d|--directories=", "-D|--devices=", "-r|--recursive", "-R|--dereference-recursive",
      "--include=", "--exclude=", "--exclude-from=", "--exclude-dir=", "-L|--files-without-match", "-l|--files-with-matches", "-c|--count",
      "-T|--initial-tab", "-Z|--null", "-B|--before-context=", "-A|--after-context=", "-C|--context=", "--group-separator=", "--no-group-separator",
      "--color|--colour=?", "-U|--binary", ..."0123456789".split("").map((digit) => `-${digit}`),
    ]),
  ),
  head: options(gnu(["-c|--bytes=", "-n|--lines=", "-q|--quiet|--silent", "-v|--verbose", "-z|--zero-terminated"], { numeric: /^-\d+$/ })),
  id: options(gnu(["-a", "-Z|--context", "-g|--group", "-G|--groups", "-n|--name", "-r|--real", "-u|--user", "-z|--zero"])),
  ls: options(
    gnu([
      "-a|--all", "-A|--almost-all", "--author", "-b|--escape", "--block-size=", "-B|--ignore-backups", "-c", "-C", "--color=?", "-d|--directory",
      "-D|--dired", "-f", "-F", "--classify=?", "--file-type", "--format=", "--full-time", "-g", "--group-directories-first", "-G|--no-group",
      "-h|--human-readable", "--si", "-H|--dereference-command-line", "--dereference-command-line-symlink-to-dir", "--hide=", "--hyperlink=?",
      "--indicator-style=", "-i|--inode", "-I|--ignore=", "-k|--kibibytes", "-l", "-L|--dereference", "-m", "-n|--numeric-uid-gid", "-N|--literal",
      "-o", "-p", "-q|--hide-control-chars", "--show-control-chars", "-Q|--quote-name", "--quoting-style=", "-r|--reverse", "-R|--recursive",
      "-s|--size", "-S", "--sort=", "--time=", "--time-style=", "-t", "-T|--tabsize=", "-u", "-U", "-v", "-w|--width=", "-x", "-X", "-Z|--context",
      "--zero", "-1",
    ]),
  ),
  nl: options(
    gnu([
      "-b|--body-numbering=", "-d|--section-delimiter=", "-f|--footer-numbering=", "-h|--header-numbering=", "-i|--line-increment=",
      "-l|--join-blank-lines=", "-n|--number-format=", "-p|--no-renumber", "-s|--number-separator=", "-v|--starting-line-number=", "-w|--number-width=",
    ]),
  ),
  numfmt: options(
    gnu([
      "--debug", "-d|--delimiter=", "--field=", "--format=", "--from=", "--from-unit=", "--grouping", "--header=?", "--invalid=", "--padding=",
      "--round=", "--suffix=", "--to=", "--to-unit=", "-z|--zero-terminated",
    ]),
  ),
  paste: options(gnu(["-d|--delimiters=", "-s|--serial", "-z|--zero-terminated"])),
  rev: options(gnu(["-h", "-V", "-0|--zero"])),
  seq: options(gnu(["-f|--format=", "-s|--separator=", "-w|--equal-width"], { operandStart: /^-[.\d]/ })),
  stat: options(gnu(["-L|--dereference", "-f|--file-system", "--cached=", "-c|--format=", "--printf=", "-t|--terse"])),
  tac: options(gnu(["-b|--before", "-r|--regex", "-s|--separator="])),
  tail: options(
    gnu(
      [
        "-c|--bytes=", "-f", "--follow=?", "-F", "-n|--lines=", "--max-unchanged-stats=", "--pid=", "-q|--quiet|--silent", "--retry",
        "-s|--sleep-interval=", "-v|--verbose", "-z|--zero-terminated",
      ],
      { numeric: /^-\d+$/ },
    ),
  ),
  tr: options(gnu(["-c|-C|--complement", "-d|--delete", "-s|--squeeze-repeats", "-t|--truncate-set1"])),
  uname: options(
    gnu([
      "-a|--all", "-s|--kernel-name", "-n|--nodename", "-r|--kernel-release", "-v|--kernel-version", "-m|--machine", "-p|--processor",
      "-i|--hardware-platform", "-o|--operating-system",
    ]),
    0,
  ),
  wc: options(gnu(["-c|--bytes", "-m|--chars", "-l|--lines", "--files0-from=", "-L|--max-line-length", "-w|--words", "--total="])),
  which: options(grammar(["-a"])),
  whoami: options(gnu([]), 0),
  // Without an output file: GNU base64 has no -o, and a second operand is an error.
  base64: options(gnu(["-d|--decode", "-i|--ignore-garbage", "-w|--wrap="]), 1),
  // The second operand is the output file. Without permutation, as POSIXLY_CORRECT reads it, so
  // `uniq in -c` (whose `-c` POSIX makes an operand) counts two.
  uniq: options(
    grammar([
      "-c|--count", "-d|--repeated", "-D", "--all-repeated=?", "-f|--skip-fields=", "--group=?", "-i|--ignore-case", "-s|--skip-chars=",
      "-u|--unique", "-z|--zero-terminated", "-w|--check-chars=", "--help", "--version", ..."0123456789".split("").map((digit) => `-${digit}`),
    ]),
    1,
  ),
  // Only `sed -n N[,M]p [FILE]`: any other script can write (`w`), run (`e`) or read a script file.
  sed: (args) =>
    (args.length === 2 || args.length === 3) &&
    args.every((word) => word.literal) &&
    args[0]!.text === "-n" &&
    /^\d+(,\d+)?p$/.test(args[1]!.text) &&
    !(args[2]?.text.startsWith("-") ?? false),
  find: (args) => {
    const parsed = parseFind(args);
    return !("problem" in parsed) && parsed.primaries.every((primary) => !UNSAFE_FIND.has(primary.name));
  },
  // Without --pre/--pre-glob (a preprocessor program), --hostname-bin (a program), -z/--search-zip (decompressors).
  rg: options(
    grammar(
      [
        "-e|--regexp=", "-f|--file=", "-g|--glob=", "--iglob=", "-t|--type=", "-T|--type-not=", "--type-add=", "--type-clear=", "-m|--max-count=",
        "-A|--after-context=", "-B|--before-context=", "-C|--context=", "-M|--max-columns=", "-j|--threads=", "-E|--encoding=", "-r|--replace=",
        "-d|--max-depth|--maxdepth=", "--max-filesize=", "--sort=", "--sortr=", "--color=", "--colors=", "--context-separator=",
        "--field-match-separator=", "--field-context-separator=", "--path-separator=", "--ignore-file=", "--engine=", "--dfa-size-limit=",
        "--regex-size-limit=", "--hyperlink-format=", "-i|--ignore-case", "-s|--case-sensitive", "-S|--smart-case", "-w|--word-regexp",
        "-x|--line-regexp", "-v|--invert-match", "-n|--line-number", "-N|--no-line-number", "-l|--files-with-matches", "--files-without-match",
        "-c|--count", "--count-matches", "-H|--with-filename", "-I|--no-filename", "-F|--fixed-strings", "-u|--unrestricted", "-a|--text",
        "-L|--follow", "-0|--null", "-o|--only-matching", "-p|--pretty", "-q|--quiet", "-U|--multiline", "--multiline-dotall", "-P|--pcre2",
        "--hidden", "--no-ignore", "--no-ignore-vcs", "--no-ignore-dot", "--no-ignore-parent", "--no-ignore-global", "--no-ignore-exclude",
        "--no-ignore-files", "--no-require-git", "--files", "--json", "--vimgrep", "--heading", "--no-heading", "--column", "--no-column",
        "--no-messages", "--stats", "--trim", "--binary", "-b|--byte-offset", "--passthru", "--crlf", "--no-config", "--one-file-system",
        "--type-list", "--debug", "--trace", "--no-unicode", "--include-zero", "--glob-case-insensitive", "--line-buffered", "--block-buffered",
        "-h|--help", "-V|--version",
      ],
      { permute: true },
    ),
  ),
};

/**
 * Whether a command may run unasked under `untrusted`: its script is known-safe (see
 * {@link isKnownSafeScript}), the tool's argv runs exactly that script with a program the model
 * cannot have written, and the PATH its programs are found on is clean (see
 * {@link cleanSearchPath}): with a writable or relative PATH entry, `cat` may be the model's own.
 */
export function isKnownSafeRun(facts: KnownSafeFacts): boolean {
  return cleanSearchPath(facts.searchPath, facts.modelWritable) && argvProblem(facts.argv, facts) === null && isKnownSafeScript(facts.parsed);
}

/**
 * Whether a script only reads: it must be plain (see {@link ParsedScript.plain}) and each of its
 * commands known-safe on its own.
 */
export function isKnownSafeScript(parsed: ParsedScript): boolean {
  return parsed.plain !== null && parsed.plain.length > 0 && parsed.plain.every(isKnownSafeCommand);
}

/**
 * Whether a command cannot write a file or run a program, by every one of its arguments: a
 * program of Codex's list, named bare (`./ls` or `/bin/ls` could be anything), whose every
 * argument its grammar accepts. Nothing else is known-safe, `git`, `env CMD`, `sort` and `tree`
 * included.
 */
export function isKnownSafeCommand(argv: readonly string[]): boolean {
  const [program, ...args] = argv;
  if (program === undefined || !Object.hasOwn(KNOWN_SAFE, program)) return false;
  return KNOWN_SAFE[program]!(args.map((text) => ({ text, literal: true, splits: false })));
}
