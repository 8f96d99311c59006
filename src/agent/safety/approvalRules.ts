import picomatch from "../../vendor/picomatch.js";
import type { ApprovalRule, RuleAction } from "../../config/schema.js";
import { argvProblem, programProblem, type ProgramContext } from "./programTrust.js";
import type { ParsedScript, ShellCommand, ShellWord } from "./shellTypes.js";

/** The rule that decided, and its place in the list (1-based), for messages the model and user read. */
export interface RuleVerdict {
  readonly action: RuleAction;
  readonly index: number;
  readonly rule: ApprovalRule;
  /**
   * Why the rule may apply without that being known: what a command runs cannot be known, or a
   * word of unknown value stands where the rule looks (`git $SUB`). Null: it matched known words.
   */
  readonly unknown: string | null;
}

/** A command as the rules see it: the argv the tool was given, what the parser proved about its script, and where its programs come from. */
export interface RuleSubject extends ProgramContext {
  readonly argv: readonly string[];
  readonly parsed: ParsedScript;
}

/** How a rule meets a command: on known words, possibly (unknown words or effect), or not. */
type Match = "yes" | "maybe" | "no";

/**
 * What the rules say about a command. Rules match words, never raw text: every command the
 * parser finds (nested ones, and the command behind a wrapper such as `env` or `sudo`, included)
 * is matched on its own, and the tool's whole argv too. A `deny` matching known words refuses.
 * A command whose effect cannot be known (see {@link ShellCommand.unknown}; also a program the
 * model can write, and an argv that runs a shell otherwise than with `-c`) gets the first `deny`
 * rule as an uncertain verdict while any `deny` rule exists, else the first `ask`; so does a
 * `deny` or `ask` whose words meet a word of unknown value. Otherwise an `ask` asks when nothing
 * allows. `allow` needs every command known and a plain script (see {@link ParsedScript.plain})
 * whose every command is allowed (or, as Codex checks each command of a script on its own,
 * `harmless`: known-safe, unless a pipe feeds its output to an allowed one), or the whole argv allowed, so allowing `npm test` never lets
 * `npm test && rm -rf x` or `npm test $(rm -rf x)` run unasked. Null when no rule applies.
 */
export function commandVerdict(
  rules: readonly ApprovalRule[],
  subject: RuleSubject,
  harmless: (words: readonly string[]) => boolean = () => false,
): RuleVerdict | null {
  const commands = commandsOf(subject);
  const whole = firstMatch(rules, (rule) => (rule.command ? prefixMatch(subject.argv.map(literal), rule.command, false) : "no"), null);
  const hits = commands.map((command) =>
    firstMatch(rules, (rule) => matches(rule, command), command.unknown ?? `a word of unknown value stands where the rule looks, in ${command.words.map((word) => word.text).join(" ")}`),
  );
  const verdicts = [whole, ...hits];
  const deny = verdicts.find((verdict) => verdict?.action === "deny" && verdict.unknown === null);
  if (deny) return deny;
  const unknown = commands.find((command) => command.unknown !== null)?.unknown ?? null;
  if (unknown !== null) {
    const first = (action: RuleAction) => firstMatch(rules, (rule) => (isCommandRule(rule) && rule.action === action ? "maybe" : "no"), unknown);
    const cautious = first("deny") ?? first("ask");
    if (cautious) return cautious;
  }
  const uncertainDeny = hits.find((verdict) => verdict?.action === "deny");
  if (uncertainDeny) return uncertainDeny;
  if (unknown === null && whole?.action === "allow") return whole;
  const plain = subject.parsed.plain;
  if (unknown === null && plain !== null) {
    const parts = plain.map((words) => firstMatch(rules, (rule) => matches(rule, { words: words.map(literal), unknown: null }), null));
    const allowed = parts.find((verdict) => verdict?.action === "allow");
    const besideAllowed = (i: number) => !subject.parsed.piped && harmless(plain[i]!);
    if (allowed && parts.every((verdict, i) => verdict?.action === "allow" || (verdict === null && besideAllowed(i)))) return allowed;
  }
  return verdicts.find((verdict) => verdict?.action === "ask") ?? null;
}

/** What the rules say about a patch writing `paths` (relative to the thread's cwd): any `deny` refuses, all `allow` allows, any `ask` asks. */
export function pathVerdict(rules: readonly ApprovalRule[], paths: readonly string[]): RuleVerdict | null {
  const verdicts = paths.map((file) => firstMatch(rules, (rule) => (rule.path !== undefined && globMatcher(rule.path)(file) ? "yes" : "no"), null));
  const deny = verdicts.find((verdict) => verdict?.action === "deny");
  if (deny) return deny;
  if (verdicts.length > 0 && verdicts.every((verdict) => verdict?.action === "allow")) return verdicts[0]!;
  return verdicts.find((verdict) => verdict?.action === "ask") ?? null;
}

/**
 * The parsed commands as the rules see them: a command whose program is one the model can write
 * (a path inside its writable directories, or relative after a `cd`) has an unknown effect, and
 * so has the tool's argv when it runs something other than the checked script.
 */
function commandsOf(subject: RuleSubject): ShellCommand[] {
  const movesDirectory = subject.parsed.commands.some((command) => command.movesDirectory);
  const commands = subject.parsed.commands.map((command) => {
    const program = command.words[0];
    const problem = command.unknown === null && program?.literal ? programProblem(program.text, subject, movesDirectory) : null;
    return problem ? { ...command, unknown: problem } : command;
  });
  const problem = argvProblem(subject.argv, subject);
  if (problem) commands.push({ words: subject.argv.map(literal), unknown: problem });
  return commands;
}

/**
 * How a rule meets one command. `deny` and `ask` are cautious: a command of unknown effect may
 * meet every one of them, and a word of unknown value may be any word. `allow` needs known words.
 * The program also counts by its base name (`/usr/bin/git` is `git`).
 */
function matches(rule: ApprovalRule, command: ShellCommand): Match {
  if (!isCommandRule(rule)) return "no";
  const cautious = rule.action !== "allow";
  if (command.unknown !== null) return cautious ? "maybe" : "no";
  const program = command.words[0];
  const spellings = [command.words];
  if (program?.literal && program.text.includes("/")) spellings.push([literal(baseName(program.text)), ...command.words.slice(1)]);
  const results = spellings.map((words): Match => {
    if (rule.command) return prefixMatch(words, rule.command, cautious);
    if (words.some((word) => !word.literal)) return cautious ? "maybe" : "no";
    return anchored(rule.command_regex!).test(words.map((word) => word.text).join(" ")) ? "yes" : "no";
  });
  return results.includes("yes") ? "yes" : results.includes("maybe") ? "maybe" : "no";
}

/** Whether `words` start with `prefix`; a word of unknown value may be the word there, and one that may split may be any words from there on. */
function prefixMatch(words: readonly ShellWord[], prefix: readonly string[], cautious: boolean): Match {
  let uncertain = false;
  for (let i = 0; i < prefix.length; i++) {
    const word = words[i];
    if (word === undefined) return "no";
    if (word.literal) {
      if (word.text !== prefix[i]) return "no";
      continue;
    }
    if (!cautious) return "no";
    if (word.splits) return "maybe";
    uncertain = true;
  }
  return uncertain ? "maybe" : "yes";
}

function isCommandRule(rule: ApprovalRule): boolean {
  return rule.command !== undefined || rule.command_regex !== undefined;
}

function literal(text: string): ShellWord {
  return { text, literal: true, splits: false };
}

function baseName(program: string): string {
  return program.split("/").pop() ?? program;
}

/** The first rule that meets a command, with `unknown` as the reason when it only may. */
function firstMatch(rules: readonly ApprovalRule[], test: (rule: ApprovalRule) => Match, unknown: string | null): RuleVerdict | null {
  for (const [index, rule] of rules.entries()) {
    const match = test(rule);
    if (match !== "no") return { action: rule.action, index: index + 1, rule, unknown: match === "maybe" ? unknown : null };
  }
  return null;
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
