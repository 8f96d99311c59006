import type { ProcessSession } from "./processSession.js";

/** How a session starts: where, with what environment, and who hears its output. */
export type SessionOptions = ConstructorParameters<typeof ProcessSession>[2];

/**
 * The commands a turn started; all of them are killed when the turn ends. Process support (execa)
 * loads with the first command, so a turn that runs none never waits for it.
 */
export class ExecSessions {
  private nextId = 1;
  private readonly sessions = new Map<number, ProcessSession>();
  private ended = false;

  /** Starts a command as a new session; one started after {@link killAll} is killed at once. */
  async start(argv: readonly string[], options: SessionOptions): Promise<ProcessSession> {
    const { ProcessSession } = await import("./processSession.js");
    const session = new ProcessSession(this.nextId++, argv, options);
    this.sessions.set(session.id, session);
    // The turn ended while process support was loading: the command must not outlive it.
    if (this.ended) session.kill();
    return session;
  }

  /** A session the model may still poll (running, or exited with output not yet read). */
  get(id: number): ProcessSession | undefined {
    return this.sessions.get(id);
  }

  /** Forgets a session whose exit the model has seen. */
  remove(id: number): void {
    this.sessions.delete(id);
  }

  /** Kills every session still running, and any started from now on. */
  killAll(): void {
    this.ended = true;
    for (const session of this.sessions.values()) session.kill();
  }
}
