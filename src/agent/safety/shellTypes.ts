/** What the shell parser (shellParser.ts) finds in a script, in types every reader of its result shares. */

/** One word of a simple command as bash would pass it, when that can be known without running anything. */
export interface ShellWord {
  /** The word after quote removal; for a word with expansions, its source text. */
  readonly text: string;
  /** The word is exactly `text` whatever the environment: no expansion, substitution or unquoted glob/brace/tilde. */
  readonly literal: boolean;
  /** Bash may make none, one or several words of it (an unquoted expansion, a glob, a brace). */
  readonly splits: boolean;
}

/** A command a script runs, found anywhere in it (inside substitutions, subshells, nested `bash -c`, behind wrappers). */
export interface ShellCommand {
  readonly words: readonly ShellWord[];
  /**
   * Why what this command runs cannot be known from the script, or null: a program named by an
   * expansion, a shell reading its script from a file or standard input, a wrapper option no
   * grammar knows, an alias, PATH set… (see invocations.ts). Rules treat it as possibly matching
   * every `deny` and `ask`, and never as allowed.
   */
  readonly unknown: string | null;
  /** It changes directory (`cd`, `env -C`), so a relative program path may resolve elsewhere afterwards. */
  readonly movesDirectory?: boolean;
}

/** What the parser proves about a script. */
export interface ParsedScript {
  /**
   * The script's simple commands as plain word lists, when the script is nothing but simple
   * commands of literal words joined by `&&`, `||`, `;`, `|` or newlines (no redirection,
   * substitution, expansion, assignment, subshell, background job, heredoc or control flow);
   * null otherwise. Only a plain script can be known-safe or allowed by a rule.
   */
  readonly plain: readonly (readonly string[])[] | null;
  /** Some of its commands are joined by a pipe: one reads what another writes. */
  readonly piped?: boolean;
  /** Every command the script runs, nested and wrapped ones included, for rules. */
  readonly commands: readonly ShellCommand[];
}
