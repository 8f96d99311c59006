import picomatch from "../../vendor/picomatch.js";
import type { ApprovalRule, RuleAction } from "../../config/schema.js";
import type { ParsedScript, ShellCommand, ShellWord } from "./shellParser.js";

/** The rule that decided, and its place in the list (1-based), for messages the model and user read. */
export interface RuleVerdict {
  readonly action: RuleAction;
  readonly index: number;
  readonly rule: ApprovalRule;
}

/** A command as the rules see it: the argv the tool was given and what the parser proved about its script. */
export interface RuleSubject {
  readonly argv: readonly string[];
  readonly parsed: ParsedScript;
}

// Programs that run the rest of their words as a command: a deny on `git push` must see `env X=1 git push`.
const WRAPPERS: Readonly<Record<string, (args: readonly ShellWord[]) => number>> = {
  env: (args) => skipWhile(args, (word) => word.text.startsWith("-") || /^[A-Za-z_][A-Za-z0-9_]*=/.test(word.text)),
  command: (args) => skipWhile(args, (word) => word.text.startsWith("-")),
  builtin: () => 0,
  exec: (args) => skipWhile(args, (word) => word.text.startsWith("-")),
  nohup: () => 0,
  time: (args) => skipWhile(args, (word) => word.text.startsWith("-")),
  nice: (args) => skipOptions(args, ["-n"]),
  setsid: (args) => skipWhile(args, (word) => word.text.startsWith("-")),
  sudo: (args) => skipOptions(args, ["-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U"]),
  doas: (args) => skipOptions(args, ["-u", "-C"]),
  stdbuf: (args) => skipWhile(args, (word) => word.text.startsWith("-")),
  timeout: (args) => skipOptions(args, ["-s", "-k", "--signal", "--kill-after"]) + 1,
  xargs: (args) => skipOptions(args, ["-a", "-d", "-E", "-I", "-L", "-n", "-P", "-s", "--arg-file", "--delimiter", "--max-args", "--max-procs"]),
  coproc: () => 0,
};
// git's options before the subcommand (`git -C dir push` is `git push`), those that take a value as the next word.
const GIT_VALUE_OPTIONS = ["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--config-env", "--super-prefix"];
// find's actions that run the words after them, up to `;` or `+`.
const FIND_EXEC = new Set(["-exec", "-execdir", "-ok", "-okdir"]);

/**
 * What the rules say about a command. Rules match words, never raw text: every simple command the
 * parser finds (nested ones included, and the command behind a wrapper such as `env` or `sudo`)
 * is matched on its own, and the tool's whole argv too. Any `deny` refuses, and so does an `ask`
 * when nothing allows; a command whose words cannot be known (an expansion where a rule looks)
 * matches every `deny` and `ask`. `allow` needs a plain script (see {@link ParsedScript.plain})
 * whose every command is allowed, or the whole argv allowed, so allowing `npm test` never lets
 * `npm test && rm -rf x` or `npm test $(rm -rf x)` run unasked. Null when no rule matches.
 */
export function commandVerdict(rules: readonly ApprovalRule[], subject: RuleSubject): RuleVerdict | null {
  const literalArgv = subject.argv.map((text) => ({ text, literal: true }));
  const whole = firstMatch(rules, (rule) => (rule.command ? startsWith(literalArgv, rule.command, false) : false));
  const commands = subject.parsed.commands.flatMap(withUnwrapped);
  const cautious = commands.map((command) => firstMatch(rules, (rule) => matches(rule, command, rule.action !== "allow")));
  const deny = [whole, ...cautious].find((verdict) => verdict?.action === "deny");
  if (deny) return deny;
  if (whole?.action === "allow") return whole;
  const plain = subject.parsed.plain;
  if (plain !== null) {
    const parts = plain.map((words) => firstMatch(rules, (rule) => matches(rule, { words: words.map((text) => ({ text, literal: true })), opaque: false }, false)));
    if (parts.every((verdict) => verdict?.action === "allow")) return parts[0] ?? null;
  }
  return [whole, ...cautious].find((verdict) => verdict?.action === "ask") ?? null;
}

/** What the rules say about a patch writing `paths` (relative to the thread's cwd): any `deny` refuses, all `allow` allows, any `ask` asks. */
export function pathVerdict(rules: readonly ApprovalRule[], paths: readonly string[]): RuleVerdict | null {
  const verdicts = paths.map((file) => firstMatch(rules, (rule) => rule.path !== undefined && globMatcher(rule.path)(file)));
  const deny = verdicts.find((verdict) => verdict?.action === "deny");
  if (deny) return deny;
  if (verdicts.length > 0 && verdicts.every((verdict) => verdict?.action === "allow")) return verdicts[0]!;
  return verdicts.find((verdict) => verdict?.action === "ask") ?? null;
}

/** Whether a rule matches one command; `cautious`: unknown words (and opaque commands) match anything. */
function matches(rule: ApprovalRule, command: ShellCommand, cautious: boolean): boolean {
  if (command.opaque) return cautious && (rule.command !== undefined || rule.command_regex !== undefined);
  if (rule.command) return startsWith(command.words, rule.command, cautious);
  if (rule.command_regex) {
    if (!cautious && command.words.some((word) => !word.literal)) return false;
    return anchored(rule.command_regex).test(command.words.map((word) => word.text).join(" "));
  }
  return false;
}

/**
 * The command itself, and what it runs in other words: the command a wrapper (`env`, `sudo`,
 * `xargs`, `timeout`…) runs, recursively; the commands of `find -exec`; `git` with its global
 * options left out. The program is named by its base name (`/usr/bin/git` is `git`).
 */
function withUnwrapped(command: ShellCommand): ShellCommand[] {
  if (command.opaque) return [command];
  const found: ShellCommand[] = [];
  const add = (words: readonly ShellWord[]) => {
    if (words.length === 0) return;
    found.push({ words, opaque: false });
    const name = words[0]!;
    if (name.literal && name.text.includes("/")) found.push({ words: [{ text: baseName(name.text), literal: true }, ...words.slice(1)], opaque: false });
  };
  let words = command.words;
  add(words);
  for (let depth = 0; depth < 8 && words.length > 0; depth++) {
    const name = words[0]!;
    const program = name.literal ? baseName(name.text) : "";
    if (program === "git") add([name, ...words.slice(1 + skipOptions(words.slice(1), GIT_VALUE_OPTIONS, true))]);
    if (program === "find") for (const executed of findExecuted(words)) add(executed);
    const skip = WRAPPERS[program];
    if (!skip) break;
    const args = words.slice(1);
    words = args.slice(Math.min(skip(args), args.length));
    add(words);
  }
  return found;
}

/** The word lists `find … -exec CMD … ;` runs. */
function findExecuted(words: readonly ShellWord[]): ShellWord[][] {
  const executed: ShellWord[][] = [];
  for (let i = 0; i < words.length; i++) {
    if (!FIND_EXEC.has(words[i]!.text)) continue;
    const end = words.findIndex((word, k) => k > i && (word.text === ";" || word.text === "+"));
    executed.push(words.slice(i + 1, end === -1 ? words.length : end));
    if (end !== -1) i = end;
  }
  return executed;
}

function baseName(program: string): string {
  return program.split("/").pop() ?? program;
}

function skipWhile(args: readonly ShellWord[], skip: (word: ShellWord) => boolean): number {
  const index = args.findIndex((word) => !skip(word));
  return index === -1 ? args.length : index;
}

/** Skips options, and the value after each option in `withValue` (`stopAtDashes`: `--` is not skipped). */
function skipOptions(args: readonly ShellWord[], withValue: readonly string[], stopAtDashes = false): number {
  let i = 0;
  while (i < args.length && args[i]!.text.startsWith("-")) {
    if (args[i]!.text === "--") return stopAtDashes ? i : i + 1;
    i += withValue.includes(args[i]!.text) ? 2 : 1;
  }
  return i;
}

function firstMatch(rules: readonly ApprovalRule[], test: (rule: ApprovalRule) => boolean): RuleVerdict | null {
  const index = rules.findIndex(test);
  return index === -1 ? null : { action: rules[index]!.action, index: index + 1, rule: rules[index]! };
}

function startsWith(words: readonly ShellWord[], prefix: readonly string[], cautious: boolean): boolean {
  return prefix.length <= words.length && prefix.every((word, i) => words[i]!.text === word || (cautious && !words[i]!.literal));
}

const regexCache = new Map<string, RegExp>();

function anchored(source: string): RegExp {
  let regex = regexCache.get(source);
  if (!regex) regexCache.set(source, (regex = new RegExp(`^(?:${source})$`)));
  return regex;
}

const globCache = new Map<string, (file: string) => boolean>();

/** A path glob as picomatch reads it: `**`, `*`, `?`, `[…]` classes and `{a,b}` braces; dotfiles match. */
function globMatcher(glob: string): (file: string) => boolean {
  let matcher = globCache.get(glob);
  if (!matcher) globCache.set(glob, (matcher = picomatch(glob, { dot: true })));
  return matcher;
}
