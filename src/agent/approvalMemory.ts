import { splitWords } from "./exec/shellWords.js";

/**
 * What the user approved for the rest of a thread's life in memory: exact commands and paths
 * (`acceptForSession`) and command prefixes (`acceptWithExecpolicyAmendment`).
 */
export class ApprovalMemory {
  private readonly keys = new Set<string>();
  private readonly prefixes: (readonly string[])[] = [];

  /** Whether `key` (a command or a patch's paths) was accepted for the session. */
  has(key: string): boolean {
    return this.keys.has(key);
  }

  /** Remembers `key` as accepted for the session. */
  add(key: string): void {
    this.keys.add(key);
  }

  /** Allows, without asking, every command whose words start with `prefix`. */
  allowPrefix(prefix: readonly string[]): void {
    if (prefix.length > 0) this.prefixes.push([...prefix]);
  }

  /**
   * Whether an allowed prefix covers the command: its argv starts with the prefix, or its script is
   * one simple command whose words do. A compound script (`a && b`) matches only through its argv,
   * so allowing `a` never lets `b` run unasked.
   */
  allowsCommand(argv: readonly string[], script: string): boolean {
    const words = splitWords(script.trim());
    return this.prefixes.some((prefix) => startsWith(argv, prefix) || (words !== null && startsWith(words, prefix)));
  }
}

/** The prefix to offer for "don't ask again": the script's words when it is one simple command, else the whole argv. */
export function proposedPrefix(argv: readonly string[], script: string): string[] {
  const words = splitWords(script.trim());
  return words && words.length > 0 ? words : [...argv];
}

function startsWith(words: readonly string[], prefix: readonly string[]): boolean {
  return prefix.length <= words.length && prefix.every((word, i) => words[i] === word);
}
