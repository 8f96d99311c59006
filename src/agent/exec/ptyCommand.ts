/**
 * A `command/exec` with `tty: true`: the command runs on a pseudo-terminal (node-pty), so programs
 * that check for a terminal (prompts, `tput`, colours, line editing) behave as in a terminal.
 * Output (stdout and stderr are one stream on a terminal) is delivered as `stdout`, with
 * backpressure; stdin is the terminal's input; the window can be resized while it runs.
 */
import { spawn, type IPty } from "@lydell/node-pty";
import type { Launch, Launcher } from "../boundary/launch.js";
import type { StartPermit } from "./commandGate.js";
import { COMMAND_MARKER, killMarked, newCommandMarker } from "./commandMarker.js";
import { TIMEOUT_EXIT_CODE, type OneOffOptions, type OneOffResult } from "./oneOffCommand.js";

/** The terminal's first size when the request gives none (a classic 80×24 window). */
const DEFAULT_SIZE = { cols: 80, rows: 24 };
const MAX_TIMER_MS = 2 ** 31 - 1;
/** The terminal type commands see (TERM). */
const TERMINAL_NAME = "xterm-256color";
/** ^D: on a terminal in canonical mode, end of input for the program reading it. */
const END_OF_TRANSMISSION = "\x04";

/** A command on a pseudo-terminal; the same controls as a piped one, plus {@link resize}. */
export class PtyCommand {
  /** Settles once the command exited and its output was delivered. */
  readonly finished: Promise<OneOffResult>;
  private readonly pty: IPty;
  private delivered: Promise<void> = Promise.resolve();
  private buffered: Buffer[] = [];
  private exited = false;
  private inputClosed = false;
  private timedOut = false;
  private readonly marker = newCommandMarker();

  constructor(
    permit: StartPermit,
    launcher: Launcher,
    private readonly options: OneOffOptions,
    size: { readonly cols: number; readonly rows: number } | null,
  ) {
    const { cols, rows } = size && size.cols > 0 && size.rows > 0 ? size : DEFAULT_SIZE;
    let launch: Launch | undefined;
    try {
      // node-pty sets TERM to the terminal's name in what it execs; a sandboxed command gets it through its launcher.
      launch = launcher({ ...options.env, TERM: TERMINAL_NAME, [COMMAND_MARKER]: this.marker });
      this.pty = spawn(launch.argv[0]!, launch.argv.slice(1), { name: TERMINAL_NAME, cols, rows, cwd: options.cwd, env: launch.env, encoding: null });
    } catch (error) {
      launch?.exited();
      permit.release();
      throw error;
    }
    const exited = new Promise<{ exitCode: number; signal?: number }>((resolve) => this.pty.onExit(resolve));
    permit.started(exited);
    this.capture();
    const timer = options.timeoutMs === null ? undefined : setTimeout(() => this.expire(), Math.min(options.timeoutMs, MAX_TIMER_MS));
    this.finished = exited.then(async (exit) => {
      this.exited = true;
      launch.exited();
      clearTimeout(timer);
      // Whatever it left running on the terminal goes with it, as with a piped command's group.
      this.killGroup();
      await this.delivered;
      const exitCode = this.timedOut ? TIMEOUT_EXIT_CODE : exit.signal ? -1 : exit.exitCode;
      return { exitCode, stdout: Buffer.concat(this.buffered).toString("utf8"), stderr: "", spawnError: null };
    });
  }

  /** A terminal always takes input. */
  get acceptsStdin(): boolean {
    return true;
  }

  /** Whether input was closed (by request, or because the command ended). */
  get stdinClosed(): boolean {
    return this.inputClosed || this.exited;
  }

  /** Types bytes on the terminal. */
  write(bytes: Buffer): void {
    if (!this.stdinClosed && bytes.length > 0) this.pty.write(bytes.toString("utf8"));
  }

  /** Ends the program's input: ^D, as a user would type it. */
  closeStdin(): void {
    if (this.stdinClosed) return;
    this.pty.write(END_OF_TRANSMISSION);
    this.inputClosed = true;
  }

  /** Kills the command and everything on its terminal; it then ends with exit code -1. */
  terminate(): void {
    this.killGroup();
  }

  /** Changes the window size; the program gets SIGWINCH. */
  resize(cols: number, rows: number): void {
    if (!this.exited && cols > 0 && rows > 0) this.pty.resize(cols, rows);
  }

  private expire(): void {
    this.timedOut = true;
    this.killGroup();
  }

  /** The command leads its own session on the terminal, so its process group is its pid; what left the group carries its id. */
  private killGroup(): void {
    if (!this.exited) {
      try {
        process.kill(-this.pty.pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    }
    killMarked(this.marker);
  }

  private capture(): void {
    const cap = this.options.outputBytesCap;
    let seen = 0;
    let full = false;
    this.pty.onData((data: string | Buffer) => {
      if (full) return;
      const chunk = typeof data === "string" ? Buffer.from(data) : data;
      const bytes = cap === null ? chunk : chunk.subarray(0, Math.max(0, cap - seen));
      seen += bytes.length;
      full = cap !== null && seen >= cap;
      const onOutput = this.options.onOutput;
      if (!onOutput) {
        this.buffered.push(bytes);
        return;
      }
      // Read no more until the chunk is delivered: a slow client slows the command.
      this.pty.pause();
      const capReached = full;
      this.delivered = this.delivered
        .then(() => onOutput({ stream: "stdout", bytes, capReached }))
        .catch(() => undefined)
        .finally(() => {
          if (!this.exited) this.pty.resume();
        });
    });
  }
}
