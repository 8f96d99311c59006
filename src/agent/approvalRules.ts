import type { ApprovalRule, RuleAction } from "../config/schema.js";
import { splitWords } from "./exec/shellWords.js";

/** The rule that decided, and its place in the list (1-based), for messages the model and user read. */
export interface RuleVerdict {
  readonly action: RuleAction;
  readonly index: number;
  readonly rule: ApprovalRule;
}

/**
 * What the rules say about a command. Each simple command of the script (split at `&&`, `||`,
 * `;`, `|`) is matched on its own, and the whole argv too: any `deny` refuses; `allow` needs the
 * whole command or every part allowed, so allowing `npm test` never lets `npm test && rm -rf x` run
 * unasked; otherwise any `ask` asks. Null when no rule matches.
 */
export function commandVerdict(rules: readonly ApprovalRule[], argv: readonly string[], script: string): RuleVerdict | null {
  const whole = firstMatch(rules, (rule) => (rule.command ? startsWith(argv, rule.command) : rule.command_regex ? anchored(rule.command_regex).test(script.trim()) : false));
  const parts = script
    .split(/&&|\|\||[;|\n]/)
    .map((part) => part.trim())
    .filter((part) => part.length > 0)
    .map((part) => {
      const words = splitWords(part);
      return firstMatch(rules, (rule) =>
        rule.command ? words !== null && startsWith(words, rule.command) : rule.command_regex ? anchored(rule.command_regex).test(part) : false,
      );
    });
  const all = [whole, ...parts];
  const deny = all.find((verdict) => verdict?.action === "deny");
  if (deny) return deny;
  if (whole?.action === "allow") return whole;
  if (parts.length > 0 && parts.every((verdict) => verdict?.action === "allow")) return parts[0]!;
  return all.find((verdict) => verdict?.action === "ask") ?? null;
}

/** What the rules say about a patch writing `paths` (relative to the cwd): any `deny` refuses, all `allow` allows, any `ask` asks. */
export function pathVerdict(rules: readonly ApprovalRule[], paths: readonly string[]): RuleVerdict | null {
  const verdicts = paths.map((file) => firstMatch(rules, (rule) => rule.path !== undefined && globPattern(rule.path).test(file)));
  const deny = verdicts.find((verdict) => verdict?.action === "deny");
  if (deny) return deny;
  if (verdicts.length > 0 && verdicts.every((verdict) => verdict?.action === "allow")) return verdicts[0]!;
  return verdicts.find((verdict) => verdict?.action === "ask") ?? null;
}

function firstMatch(rules: readonly ApprovalRule[], matches: (rule: ApprovalRule) => boolean): RuleVerdict | null {
  const index = rules.findIndex(matches);
  return index === -1 ? null : { action: rules[index]!.action, index: index + 1, rule: rules[index]! };
}

function startsWith(words: readonly string[], prefix: readonly string[]): boolean {
  return prefix.length <= words.length && prefix.every((word, i) => words[i] === word);
}

function anchored(source: string): RegExp {
  return new RegExp(`^(?:${source})$`);
}

/** `**` any path, `*` any name part, `?` one character; the rest literal. */
function globPattern(glob: string): RegExp {
  let source = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === "*" && glob[i + 1] === "*") {
      source += glob[i + 2] === "/" ? "(?:.*/)?" : ".*";
      i += glob[i + 2] === "/" ? 2 : 1;
    } else if (c === "*") source += "[^/]*";
    else if (c === "?") source += "[^/]";
    else source += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${source}$`);
}
