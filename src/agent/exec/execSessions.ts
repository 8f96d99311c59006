import type { Launcher } from "../boundary/launch.js";
import { commandGate } from "./commandGate.js";
import type { ProcessSession } from "./processSession.js";

/** How a session starts: where, with what environment, and who hears its output. */
export type SessionOptions = ConstructorParameters<typeof ProcessSession>[3];

/** Who started a session: the turn and its command item, and what ends the session with the turn. */
export interface SessionOwner {
  readonly turnId: string;
  readonly itemId: string;
  /** The command as the model wrote it, and where it runs (for `thread/backgroundTerminals/list`). */
  readonly command: string;
  readonly cwd: string;
  /** The turn's interrupt: a session started after it fired is killed at once. */
  readonly signal: AbortSignal;
  /** Completes the command's item while the process keeps running (its turn ended first). */
  readonly detach: () => Promise<void>;
}

/** A command still running after the turn that started it: a background terminal. */
export interface BackgroundTerminal {
  readonly processId: string;
  readonly itemId: string;
  readonly command: string;
  readonly cwd: string;
  readonly osPid: number | null;
}

/**
 * A thread's running commands (`exec_command` sessions). A command still running when its turn
 * ends keeps running, as in Codex: the model polls it with `write_stdin` in a later turn, and
 * clients list and stop it (`thread/backgroundTerminals/*`). An interrupt kills the commands of
 * the interrupted turn; unloading the thread, or stopping the server, kills them all. Process
 * support (execa) loads with the first command, so a thread that runs none never waits for it.
 */
export class ExecSessions {
  private nextId = 1;
  private readonly sessions = new Map<number, { readonly session: ProcessSession; readonly owner: SessionOwner }>();
  /** Sessions whose exit the model saw, kept so that what they left running dies with their turn. */
  private readonly finished: Array<{ readonly session: ProcessSession; readonly owner: SessionOwner }> = [];
  private closed = false;

  /** Starts a command as a new session; one started after its turn's interrupt, or after {@link killAll}, is killed at once. */
  async start(launcher: Launcher, options: SessionOptions, owner: SessionOwner): Promise<ProcessSession> {
    const { ProcessSession } = await import("./processSession.js");
    // Not while an editor call is in flight (commandGate.ts); an interrupt meanwhile ends the wait.
    const session = new ProcessSession(this.nextId++, await commandGate.startPermit(owner.signal), launcher, options);
    this.sessions.set(session.id, { session, owner });
    if (this.closed || owner.signal.aborted) session.kill();
    return session;
  }

  /** A session the model may still poll (running, or exited with output not yet read). */
  get(id: number): ProcessSession | undefined {
    return this.sessions.get(id)?.session;
  }

  /** Forgets a session whose exit the model has seen (what it left running still dies with its turn). */
  remove(id: number): void {
    const entry = this.sessions.get(id);
    if (!entry) return;
    this.sessions.delete(id);
    this.finished.push(entry);
  }

  /** Kills the sessions a turn started, and what they left running (the turn was interrupted). */
  killTurn(turnId: string): void {
    for (const { session, owner } of this.sessions.values()) if (owner.turnId === turnId) session.kill();
    this.killFinished(turnId);
  }

  /**
   * The turn ended normally: its commands still running become background terminals, their items
   * completed; what its exited commands left running (`cmd &`, `setsid cmd`) is killed.
   */
  async detachTurn(turnId: string): Promise<void> {
    for (const { session, owner } of this.sessions.values()) {
      if (owner.turnId !== turnId) continue;
      if (session.exitStatus === null) await owner.detach();
      else session.kill();
    }
    this.killFinished(turnId);
  }

  /** Kills what the turn's finished sessions (all, for null) left running, and forgets them. */
  private killFinished(turnId: string | null): void {
    for (let index = this.finished.length - 1; index >= 0; index--) {
      const { session, owner } = this.finished[index]!;
      if (turnId !== null && owner.turnId !== turnId) continue;
      session.kill();
      this.finished.splice(index, 1);
    }
  }

  /** The commands still running. */
  running(): BackgroundTerminal[] {
    return [...this.sessions.values()]
      .filter(({ session }) => session.exitStatus === null)
      .map(({ session, owner }) => ({ processId: String(session.id), itemId: owner.itemId, command: owner.command, cwd: owner.cwd, osPid: session.osPid }));
  }

  /** Kills one running command; false when no running command has that id. */
  terminate(processId: string): boolean {
    const entry = this.sessions.get(Number(processId));
    if (!entry || entry.session.exitStatus !== null || String(entry.session.id) !== processId) return false;
    entry.session.kill();
    return true;
  }

  /** Kills every running command, and what finished ones left running; the thread goes on. */
  clean(): void {
    for (const { session } of this.sessions.values()) session.kill();
    this.killFinished(null);
  }

  /** Kills every session still running, and any started from now on (the thread unloads). */
  killAll(): void {
    this.closed = true;
    this.clean();
  }
}
