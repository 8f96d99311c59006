/**
 * Process-wide: the commands the server started that may still run, and the editor calls that
 * must see none. ACP's `fs/*` takes a path that the editor resolves after our checks of it, so a
 * command running meanwhile could swap a directory of that path for a symlink (the editor would
 * then read the server's home, or write outside the writable roots). So an editor call runs only
 * while no command runs, and no command starts until the call is answered: every spawner takes a
 * {@link StartPermit}, which only a gate's `startPermit` gives out. A sandboxed command runs in a
 * PID namespace of its own, so its launcher's exit is the end of everything it started.
 */

/** Leave to start one command, counted as running from now until the command it started exits. */
class Permit {
  #done = false;

  constructor(private readonly gate: CommandGate) {}

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
    this.gate.ended();
  }
}

/** Leave to start one command; the spawners (processGroup.ts, ptyCommand.ts) require one. */
export type StartPermit = Permit;

/** The count of commands running and of editor calls in flight, and the commands waiting to start. */
export class CommandGate {
  private running = 0;
  private editorCalls = 0;
  private readonly waiting = new Set<() => void>();

  /**
   * Leave to start a command, once no editor call is in flight; start it at once (in the same
   * turn of the event loop). Rejects with `signal`'s reason when it fires first.
   */
  async startPermit(signal?: AbortSignal): Promise<StartPermit> {
    while (this.editorCalls > 0) {
      signal?.throwIfAborted();
      await new Promise<void>((resolve) => {
        const wake = (): void => {
          this.waiting.delete(wake);
          signal?.removeEventListener("abort", wake);
          resolve();
        };
        this.waiting.add(wake);
        signal?.addEventListener("abort", wake, { once: true });
      });
    }
    signal?.throwIfAborted();
    this.running++;
    return new Permit(this);
  }

  /**
   * Runs `work` while no command runs, holding back any that would start until it settles and
   * every promise it handed `holdUntil` has settled too (an editor's write it stopped waiting
   * for); runs `otherwise` instead when one is running (a background terminal, say).
   */
  async whileNoCommandRuns<T>(work: (holdUntil: (settled: Promise<unknown>) => void) => Promise<T>, otherwise: () => Promise<T>): Promise<T> {
    if (this.running > 0) return otherwise();
    this.editorCalls++;
    const held: Promise<unknown>[] = [];
    try {
      return await work((settled) => void held.push(settled));
    } finally {
      void Promise.allSettled(held).then(() => {
        this.editorCalls--;
        if (this.editorCalls === 0) for (const wake of [...this.waiting]) wake();
      });
    }
  }

  /** How many commands may be running, and how many editor calls are in flight. */
  state(): { readonly running: number; readonly editorCalls: number } {
    return { running: this.running, editorCalls: this.editorCalls };
  }

  /** A command of a permit ended (or never started). */
  ended(): void {
    this.running--;
  }
}

/** The server's gate: one per process, as the processes and the files it guards are. */
export const commandGate = new CommandGate();
