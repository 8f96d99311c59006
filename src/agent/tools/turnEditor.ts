import { commandGate } from "../exec/commandGate.js";

/**
 * Files as an editor has them (ACP's `fs/*`): a patch reads a file's text from the editor (its
 * unsaved buffer, if any) and, once written within the sandbox's rules, gives the editor the new text.
 */
export interface EditorFiles {
  /** The editor's text of an absolute path; null when the editor has none. */
  read(path: string): Promise<string | null>;
  /** Gives the editor a file's new text (absent when the editor does not write files). */
  readonly write?: ((path: string, content: string) => Promise<void>) | undefined;
}

/**
 * The editor's files (an ACP editor's buffers) as a turn's tools reach them. In a sandbox, only
 * while no command runs (commandGate.ts): ACP's `fs/*` resolves a path after our checks of it, and
 * a command running meanwhile could swap a directory of it for a symlink. Without a sandbox the
 * model reaches all of that anyway.
 */
export interface TurnEditor {
  /**
   * Runs `work` with the editor's files, or without (undefined: the disk alone) when there is no
   * editor, or a command runs in a sandboxed turn. The checks on disk go inside `work`, with the use.
   */
  use<T>(work: (files: EditorFiles | undefined) => Promise<T>): Promise<T>;
}

/** The turn's way to the editor's files: gated in a sandbox, direct without one. */
export function turnEditor(files: EditorFiles | undefined, sandboxed: boolean): TurnEditor {
  return {
    use: (work) => (files === undefined ? work(undefined) : sandboxed ? commandGate.whileNoCommandRuns(() => work(files), () => work(undefined)) : work(files)),
  };
}
