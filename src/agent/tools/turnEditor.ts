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

/** How long a turn waits for the editor to answer a read (then it reads the disk) or a write (then it goes on). */
const EDITOR_ANSWER_MS = 10_000;

/**
 * The turn's way to the editor's files: gated in a sandbox, direct without one. The turn waits for
 * the editor's answers until it is interrupted (`signal`) or for {@link EDITOR_ANSWER_MS}, so an
 * editor that does not answer cannot hold it; a write it stopped waiting for still holds back the
 * commands of every session until the editor answers (or the connection ends), since the editor
 * may yet write where its path then leads.
 */
export function turnEditor(files: EditorFiles | undefined, sandboxed: boolean, signal: AbortSignal): TurnEditor {
  return {
    use: (work) => {
      if (files === undefined) return work(undefined);
      if (!sandboxed) return work(bounded(files, signal, () => undefined));
      return commandGate.whileNoCommandRuns((holdUntil) => work(bounded(files, signal, holdUntil)), () => work(undefined));
    },
  };
}

/** `files` whose answers the turn waits for only until `signal` fires or the time is up; `hold` is told of each write. */
function bounded(files: EditorFiles, signal: AbortSignal, hold: (settled: Promise<unknown>) => void): EditorFiles {
  const write = files.write;
  return {
    read: (file) => answerOr(files.read(file), signal, null),
    write:
      write &&
      ((file, content) => {
        const written = write(file, content);
        hold(written);
        return answerOr(written, signal, undefined);
      }),
  };
}

/** `answer`, or `fallback` once the time is up; rejects with `signal`'s reason if it fires first. */
function answerOr<T>(answer: Promise<T>, signal: AbortSignal, fallback: T): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const stop = (): void => reject(signal.reason);
    const timer = setTimeout(() => resolve(fallback), EDITOR_ANSWER_MS);
    if (signal.aborted) stop();
    signal.addEventListener("abort", stop, { once: true });
    answer.then(resolve, reject).finally(() => {
      clearTimeout(timer);
      signal.removeEventListener("abort", stop);
    });
  });
}
