import type { ResultPromise } from "../../vendor/execa.js";
import { StringDecoder } from "node:string_decoder";
import type { Launcher } from "../boundary/launch.js";
import type { StartPermit } from "./commandGate.js";
import type { KeptOutput } from "./commandOutput.js";
import { HeadTailText, wholeCharacters } from "./headTailText.js";
import { killProcessGroup, processExit, spawnProcessGroup, type ProcessExit } from "./processGroup.js";

// What the item keeps of a command's output, and what the model's copy is cut from: the first and
// last halves of this many characters. Clients are streamed at most this much of it, then told the rest is cut.
const ITEM_OUTPUT_CAP = 1024 * 1024;



/**
 * One running command in its own process group: output (stdout and stderr, as they come) is kept
 * for the item and handed out in chunks for polling, stdin stays open for `write_stdin`, and
 * `kill` ends the whole group.
 */
export class ProcessSession {
  readonly exited: Promise<ProcessExit>;
  private readonly child: ResultPromise;
  private output = new HeadTailText(ITEM_OUTPUT_CAP / 2);
  private unread = new HeadTailText(ITEM_OUTPUT_CAP / 2);
  private streamed = 0;
  private exit: ProcessExit | null = null;

  constructor(
    readonly id: number,
    permit: StartPermit,
    launcher: Launcher,
    options: { cwd: string; env: Record<string, string>; onOutput: (delta: string) => void },
  ) {
    this.child = spawnProcessGroup(permit, launcher, { cwd: options.cwd, env: options.env, stdin: "pipe" });
    for (const stream of [this.child.stdout, this.child.stderr]) {
      const decoder = new StringDecoder("utf8");
      stream?.on("data", (chunk: Buffer) => {
        const text = decoder.write(chunk);
        if (!text) return;
        this.keep(text);
        this.stream(text, options.onOutput);
      });
    }
    this.exited = processExit(this.child).then((exit) => {
      // A command that could not start (a workdir it may not enter, say) tells the model why as its output.
      if (exit.spawnError) this.keep(`${exit.spawnError}\n`);
      return (this.exit = exit);
    });
  }

  /** The OS process id, as a string for the item. */
  get pid(): string | null {
    return this.child.pid === undefined ? null : String(this.child.pid);
  }

  /** The OS process id, once spawned. */
  get osPid(): number | null {
    return this.child.pid ?? null;
  }

  /** The exit, once it happened. */
  get exitStatus(): ProcessExit | null {
    return this.exit;
  }

  /** Everything printed so far (capped: head and tail kept). */
  get aggregatedOutput(): string {
    const { head, tail, dropped } = this.output.kept();
    return dropped === 0 ? head + tail : `${head}\n[… ${dropped} characters omitted …]\n${tail}`;
  }

  /** Output printed since the last call. */
  takeUnread(): KeptOutput {
    const { head, tail } = this.unread.kept();
    const taken = { text: head + tail, chars: this.unread.length };
    this.unread = new HeadTailText(ITEM_OUTPUT_CAP / 2);
    return taken;
  }

  /** Resolves true once the process exited, false after `ms` (or when `signal` aborts). */
  async waitExit(ms: number, signal: AbortSignal): Promise<boolean> {
    if (this.exit) return true;
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const timeout = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
      onAbort = () => resolve(false);
      signal.addEventListener("abort", onAbort, { once: true });
    });
    try {
      return await Promise.race([this.exited.then(() => true), timeout]);
    } finally {
      clearTimeout(timer);
      if (onAbort) signal.removeEventListener("abort", onAbort);
    }
  }

  /** Writes to the process's stdin. */
  write(chars: string): void {
    if (!this.exit) this.child.stdin?.write(chars);
  }

  /** Kills the process and everything it started (its process group). */
  kill(): void {
    // Even after it exited: what it left running (in the background, detached) goes too.
    killProcessGroup(this.child);
  }

  /** Keeps output for the item and for the model's next read. */
  private keep(text: string): void {
    this.output.append(text);
    this.unread.append(text);
  }

  /** Streams output to clients up to the cap, then says once that the rest is cut (the item keeps its tail). */
  private stream(text: string, onOutput: (delta: string) => void): void {
    if (this.streamed >= ITEM_OUTPUT_CAP) return;
    const room = ITEM_OUTPUT_CAP - this.streamed;
    this.streamed += Math.min(text.length, room);
    if (text.length <= room) return onOutput(text);
    this.streamed = ITEM_OUTPUT_CAP;
    onOutput(`${text.slice(0, wholeCharacters(text, room))}\n[… output cut: more than ${ITEM_OUTPUT_CAP} characters; the completed item keeps its head and tail …]\n`);
  }
}
