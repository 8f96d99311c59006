import type { ResultPromise } from "../../vendor/execa.js";
import type { Readable } from "node:stream";
import type { Launcher } from "../boundary/launch.js";
import type { StartPermit } from "./commandGate.js";
import { killProcessGroup, processExit, spawnProcessGroup } from "./processGroup.js";

/** Exit code reported for a command killed by its timeout, as Codex (and coreutils `timeout`). */
export const TIMEOUT_EXIT_CODE = 124;

// After the command exits, output still held open by something that escaped its process group is
// waited for this long (Codex's IO drain timeout), then dropped.
const IO_DRAIN_MS = 2_000;
// setTimeout's largest delay; longer timeouts are clamped to it (about 24.8 days).
const MAX_TIMER_MS = 2 ** 31 - 1;

/** One of a command's output streams. */
export type OutputStreamName = "stdout" | "stderr";

/** A chunk of output as it arrives; `capReached` marks the last one the byte cap lets through. */
export interface OutputChunk {
  readonly stream: OutputStreamName;
  readonly bytes: Buffer;
  readonly capReached: boolean;
}

/** How a one-off command runs. */
export interface OneOffOptions {
  readonly cwd: string;
  readonly env: Record<string, string>;
  /** Keep stdin open for {@link OneOffCommand.write}; otherwise the command reads EOF at once. */
  readonly pipeStdin: boolean;
  /** Bytes kept (or streamed) per stream, or null for all of them. */
  readonly outputBytesCap: number | null;
  /** Kill the command after this long (exit code 124), or null for never. */
  readonly timeoutMs: number | null;
  /** Takes the output as it arrives instead of buffering it for the result; each call is awaited in order. */
  readonly onOutput: ((chunk: OutputChunk) => Promise<void>) | null;
}

/** How a one-off command ended. */
export interface OneOffResult {
  /** Exit code: 124 after the timeout, -1 when a signal ended it. */
  readonly exitCode: number;
  /** Buffered output (empty when streamed), decoded as UTF-8. */
  readonly stdout: string;
  readonly stderr: string;
  /** Why the command could not start, when it could not. */
  readonly spawnError: string | null;
}

/**
 * A command run on its own (not for a turn) in its own process group: stdout and stderr are kept
 * apart as bytes under a per-stream cap, buffered or handed out as they come (with backpressure),
 * stdin is written on request, and a timeout or `terminate` kills the whole group. When the
 * command exits, whatever it left running in its group is killed too.
 */
export class OneOffCommand {
  /** Settles once the command exited and its output was delivered. */
  readonly finished: Promise<OneOffResult>;
  private readonly child: ResultPromise;
  private readonly buffers: Record<OutputStreamName, Buffer[]> = { stdout: [], stderr: [] };
  private delivered: Promise<void> = Promise.resolve();
  private timedOut = false;
  private stdinEnded = false;

  constructor(
    permit: StartPermit,
    launcher: Launcher,
    private readonly options: OneOffOptions,
  ) {
    this.child = spawnProcessGroup(permit, launcher, { cwd: options.cwd, env: options.env, stdin: options.pipeStdin ? "pipe" : "ignore" });
    this.capture("stdout", this.child.stdout);
    this.capture("stderr", this.child.stderr);
    const timer = options.timeoutMs === null ? undefined : setTimeout(() => this.expire(), Math.min(options.timeoutMs, MAX_TIMER_MS));
    let drainTimer: NodeJS.Timeout | undefined;
    this.child.once("exit", () => {
      clearTimeout(timer);
      killProcessGroup(this.child);
      drainTimer = setTimeout(() => {
        this.child.stdout?.destroy();
        this.child.stderr?.destroy();
      }, IO_DRAIN_MS);
    });
    this.finished = processExit(this.child).then(async (exit) => {
      clearTimeout(timer);
      clearTimeout(drainTimer);
      await this.delivered;
      return {
        exitCode: this.timedOut ? TIMEOUT_EXIT_CODE : exit.exitCode,
        stdout: Buffer.concat(this.buffers.stdout).toString("utf8"),
        stderr: Buffer.concat(this.buffers.stderr).toString("utf8"),
        spawnError: exit.spawnError,
      };
    });
  }

  /** Whether the command was started with stdin open for writing. */
  get acceptsStdin(): boolean {
    return this.options.pipeStdin;
  }

  /** Whether stdin was closed (by request, or because the command ended). */
  get stdinClosed(): boolean {
    return this.stdinEnded || this.child.stdin === null || this.child.stdin.writableEnded || this.child.stdin.destroyed;
  }

  /** Writes bytes to the command's stdin. */
  write(bytes: Buffer): void {
    if (!this.stdinClosed && bytes.length > 0) this.child.stdin!.write(bytes);
  }

  /** Closes the command's stdin (EOF), after anything already written. */
  closeStdin(): void {
    if (this.stdinClosed) return;
    this.stdinEnded = true;
    this.child.stdin!.end();
  }

  /** Kills the command and everything in its process group; it then ends with exit code -1. */
  terminate(): void {
    killProcessGroup(this.child);
  }

  private expire(): void {
    this.timedOut = true;
    killProcessGroup(this.child);
  }

  private capture(name: OutputStreamName, stream: Readable | null): void {
    const cap = this.options.outputBytesCap;
    let seen = 0;
    let full = false;
    stream?.on("data", (chunk: Buffer) => {
      // Past the cap the stream is still drained, so the command never blocks on a full pipe.
      if (full) return;
      const bytes = cap === null ? chunk : chunk.subarray(0, Math.max(0, cap - seen));
      seen += bytes.length;
      full = cap !== null && seen >= cap;
      const onOutput = this.options.onOutput;
      if (!onOutput) {
        this.buffers[name].push(bytes);
        return;
      }
      // Read no more of this stream until the chunk is delivered: a slow client slows the command.
      stream.pause();
      const capReached = full;
      this.delivered = this.delivered
        .then(() => onOutput({ stream: name, bytes, capReached }))
        // A chunk that cannot be delivered (the client is gone) is dropped; the command still ends normally.
        .catch(() => undefined)
        .finally(() => stream.resume());
    });
  }
}
