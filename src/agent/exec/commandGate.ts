/**
 * Process-wide: the commands the server started that may still run, and the editor calls that
 * must see none. ACP's `fs/*` takes a path that the editor resolves after our checks of it, so a
 * command running meanwhile could swap a directory of that path for a symlink (the editor would
 * then read the server's home, or write outside the writable roots). So an editor call runs only
 * while no command runs, and no command starts until the call is answered: every spawner takes a
 * {@link StartPermit}, which only {@link startPermit} gives out. A sandboxed command runs in a
 * PID namespace of its own, so its launcher's exit is the end of everything it started.
 */

let running = 0;
let editorCalls = 0;
const waiting = new Set<() => void>();

/** Leave to start one command, counted as running from now until the command it started exits. */
class Permit {
  #done = false;

  /** The command started: it counts until `exited` settles. */
  started(exited: PromiseLike<unknown>): void {
    exited.then(
      () => this.release(),
      () => this.release(),
    );
  }

  /** No command started after all (the spawn threw). */
  release(): void {
    if (this.#done) return;
    this.#done = true;
    running--;
  }
}

/** Leave to start one command; the spawners (processGroup.ts, ptyCommand.ts) require one. */
export type StartPermit = Permit;

/**
 * Leave to start a command, once no editor call is in flight; start it at once (in the same
 * turn of the event loop). Rejects with `signal`'s reason when it fires first.
 */
export async function startPermit(signal?: AbortSignal): Promise<StartPermit> {
  while (editorCalls > 0) {
    signal?.throwIfAborted();
    await new Promise<void>((resolve) => {
      const wake = (): void => {
        waiting.delete(wake);
        signal?.removeEventListener("abort", wake);
        resolve();
      };
      waiting.add(wake);
      signal?.addEventListener("abort", wake, { once: true });
    });
  }
  signal?.throwIfAborted();
  running++;
  return new Permit();
}

/**
 * Runs `work` while no command the server started runs, holding back any that would start until
 * it settles; runs `otherwise` instead when one is running (a background terminal, say).
 */
export async function whileNoCommandRuns<T>(work: () => Promise<T>, otherwise: () => Promise<T>): Promise<T> {
  if (running > 0) return otherwise();
  editorCalls++;
  try {
    return await work();
  } finally {
    editorCalls--;
    if (editorCalls === 0) for (const wake of [...waiting]) wake();
  }
}

/** How many commands may be running, and how many editor calls are in flight (for tests and logs). */
export function commandGateState(): { readonly running: number; readonly editorCalls: number } {
  return { running, editorCalls };
}
