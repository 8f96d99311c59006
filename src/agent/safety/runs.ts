import type { ParsedScript, ShellWord } from "./shellTypes.js";
import type { Assignment } from "./variables.js";

/** Something a program runs, as its words tell. */
export type Run =
  /** A command, which may itself be a wrapper (`env git push` runs `git push`). */
  | { readonly kind: "command"; readonly words: readonly ShellWord[] }
  /** The same command in other words, with what does not change what it runs left out (`git -C dir push` is `git push`). */
  | { readonly kind: "same"; readonly words: readonly ShellWord[] }
  /** A shell script (`bash -c SCRIPT`, `flock -c SCRIPT`). */
  | { readonly kind: "script"; readonly script: ShellWord }
  /** Something that cannot be known from the words, and why. */
  | { readonly kind: "unknown"; readonly reason: string };

/** What a program's words say it runs. */
export interface Analysis {
  readonly runs: readonly Run[];
  /** Variables it sets for what it runs (`env NAME=value`, `sudo NAME=value`, `strace -E NAME=value`). */
  readonly assignments?: readonly Assignment[];
  /** It changes directory (`cd`, `env -C`), so a relative program path after it resolves elsewhere. */
  readonly movesDirectory?: boolean;
}

/** Parses a script a program runs (a `-c` string, `env -S`); the parser bounds how deep scripts nest. */
export type NestedParser = (script: string) => ParsedScript;

/** Reads a program's words (after its name) into what it runs. */
export type Analyzer = (args: readonly ShellWord[], parse: NestedParser) => Analysis | null;

/** An analysis of one thing run. */
export function runs(...list: Run[]): Analysis {
  return { runs: list };
}

/** An analysis saying what runs cannot be known. */
export function unknown(reason: string): Analysis {
  return { runs: [{ kind: "unknown", reason }] };
}
