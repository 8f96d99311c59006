import { diffWordsWithSpace } from "../vendor/diff.js";
/** One line of a transcript: a message and its direction, or a marker (a restart, a file check). */
export type TranscriptEntry =
  | { readonly dir: "c2s" | "s2c"; readonly msg: unknown }
  | { readonly dir: "meta"; readonly event: string; readonly [key: string]: unknown };

/** Machine-specific paths to replace with placeholders. */
export interface NormalizeOptions {
  readonly home: string;
  readonly workspace: string;
  /** More replacements: text → placeholder. */
  readonly replace?: Readonly<Record<string, string>>;
  /** Patterns (global regular expressions) replaced in every string after the paths. */
  readonly patterns?: ReadonlyArray<{ readonly regex: RegExp; readonly with: string }>;
}

// Fields that depend on the machine, not on the server's behaviour: the initialize result's
// user agent and platform, and OS process ids of commands.
const MACHINE_FIELDS: Readonly<Record<string, string>> = {
  userAgent: "{USER_AGENT}",
  platformFamily: "{PLATFORM_FAMILY}",
  platformOs: "{PLATFORM_OS}",
  processId: "{PID}",
};

/**
 * The one place transcripts are made machine-independent: the home and workspace paths become
 * `{HOME}` and `{WORKSPACE}`, and the initialize result's user agent and platform and command
 * process ids become placeholders. Ids and times are left alone: deterministic mode makes them stable.
 */
export function normalizeTranscript(entries: readonly TranscriptEntry[], options: NormalizeOptions): TranscriptEntry[] {
  const pairs = Object.entries({ ...options.replace, [options.workspace]: "{WORKSPACE}", [options.home]: "{HOME}" }).sort(
    ([a], [b]) => b.length - a.length,
  );
  const replacePaths = (text: string): string => pairs.reduce((value, [from, to]) => (from ? value.split(from).join(to) : value), text);
  const replaceText = (text: string): string => (options.patterns ?? []).reduce((value, { regex, with: to }) => value.replace(regex, to), replacePaths(text));
  const walk = (value: unknown, key?: string): unknown => {
    if (typeof value === "string") return key && key in MACHINE_FIELDS ? MACHINE_FIELDS[key] : replaceText(value);
    if (Array.isArray(value)) return value.map((element) => walk(element));
    if (value && typeof value === "object") {
      return Object.fromEntries(Object.entries(value).map(([name, element]) => [name, walk(element, name)]));
    }
    return value;
  };
  return entries.map((entry) => walk(entry) as TranscriptEntry);
}

/** A transcript as JSONL, one entry a line. */
export function renderTranscript(entries: readonly TranscriptEntry[]): string {
  return entries.map((entry) => JSON.stringify(entry)).join("\n") + "\n";
}

/** The index of the first line where two transcripts differ; null when they are equal. */
export function firstDifferingLine(expected: string, actual: string): number | null {
  if (expected === actual) return null;
  const a = expected.split("\n");
  const b = actual.split("\n");
  let index = 0;
  while (index < a.length && index < b.length && a[index] === b[index]) index++;
  return index;
}

/**
 * The first difference between two transcripts, readable: the lines around it, then the two
 * differing lines word by word (`[-removed-]{+added+}`); null when they are equal.
 */
export function diffTranscripts(expected: string, actual: string, context = 2): string | null {
  const index = firstDifferingLine(expected, actual);
  if (index === null) return null;
  const a = expected.split("\n");
  const b = actual.split("\n");
  const from = Math.max(0, index - context);
  const lines = [`first difference at line ${index + 1}:`];
  for (let k = from; k < index; k++) lines.push(`  ${a[k]}`);
  for (const line of a.slice(index, index + context + 1)) lines.push(`- ${line}`);
  for (const line of b.slice(index, index + context + 1)) lines.push(`+ ${line}`);
  if (a[index] !== undefined && b[index] !== undefined) lines.push(`words: ${wordDiff(a[index]!, b[index]!)}`);
  return lines.join("\n");
}

/** Where two lines differ, word by word: what only the first has in `[-…-]`, what only the second has in `{+…+}`, the rest elided around them. */
function wordDiff(before: string, after: string): string {
  const parts = diffWordsWithSpace(before, after);
  return parts
    .map((part, at) => {
      if (part.removed) return `[-${part.value}-]`;
      if (part.added) return `{+${part.value}+}`;
      // Unchanged text is shortened to its ends: a message line can be kilobytes long.
      const value = part.value;
      if (value.length <= 40) return value;
      return `${at === 0 ? "" : value.slice(0, 20)}…${at === parts.length - 1 ? "" : value.slice(-20)}`;
    })
    .join("");
}
