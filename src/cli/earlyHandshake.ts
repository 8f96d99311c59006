import { PassThrough, type Readable, type Writable } from "node:stream";
import { resolveHome } from "../config/home.js";
import { readPlainInitialize } from "../protocol/plainInitialize.js";
import type { AnsweredInitialize } from "../server/appServer.js";
import { describeServer, isHeaderValue } from "../server/serverDescription.js";
import { serializeMessage } from "../transport/lineFormat.js";
import { readMatchingStamp, type StartupStamp } from "./startupStamp.js";

// An `initialize` line is a few hundred bytes; a first line longer than this is left to the server.
const FIRST_LINE_LIMIT = 64 * 1024;

/** What the server serves stdio from once it has loaded. */
export interface Handoff {
  /** What the client sent after the answered `initialize` (from the first byte when none was answered). */
  readonly input: Readable;
  readonly answered: AnsweredInitialize | null;
}

/**
 * Answers a client's `initialize` on stdio before the server's modules have loaded (most of a
 * start), when the last start with this command line, server version and config.toml got as
 * far as serving (see {@link StartupStamp}), so this one will too. Reads only the first line. The
 * server, once loaded, serves that `initialize` as answered (its handler runs, the notifications
 * that follow it go out) and reads the input from the line after it: to the client and to the
 * server alike the request was answered before anything else was read.
 */
export class EarlyHandshake {
  private readonly chunks: Buffer[] = [];
  private bytes = 0;
  private firstLineRead = false;
  private ended = false;
  private failure = false;
  private answered: AnsweredInitialize | null = null;
  // Where the input after the answered line starts, in the bytes read so far.
  private consumed = 0;
  private readonly onData = (chunk: Buffer) => this.read(chunk);
  private readonly onEnd = () => (this.ended = true);
  private readonly onError = () => (this.failure = true);
  // A client gone before its answer: the server's writer meets the broken pipe again and handles it.
  private readonly onOutputError = () => undefined;
  // Until the server takes over, nothing is in flight: SIGTERM or SIGINT ends the process as the
  // server's own shutdown would, with status 0, rather than by the signal.
  private readonly onSignal = () => process.exit(0);

  private constructor(
    private readonly home: string,
    private readonly stamp: StartupStamp,
    private readonly stdin: Readable,
    private readonly stdout: Writable,
  ) {
    stdin.on("data", this.onData);
    stdin.on("end", this.onEnd);
    stdin.on("error", this.onError);
    stdout.on("error", this.onOutputError);
    process.on("SIGTERM", this.onSignal);
    process.on("SIGINT", this.onSignal);
  }

  /** Starts reading stdin when a stamp vouches for this start; null otherwise (the server then reads stdin itself). */
  static start(argv: readonly string[], env: NodeJS.ProcessEnv, stdio: () => { stdin: Readable; stdout: Writable }): EarlyHandshake | null {
    const home = resolveHome(env);
    const stamp = readMatchingStamp(home, argv);
    if (!stamp) return null;
    const { stdin, stdout } = stdio();
    return new EarlyHandshake(home, stamp, stdin, stdout);
  }

  /** Stops reading and gives the server its input: what was read so far, then the rest of stdin. Call after the server's own signal handlers are in place. */
  handOff(): Handoff {
    this.stdin.off("data", this.onData);
    this.stdin.off("end", this.onEnd);
    this.stdin.off("error", this.onError);
    this.stdout.off("error", this.onOutputError);
    process.off("SIGTERM", this.onSignal);
    process.off("SIGINT", this.onSignal);
    const input = new PassThrough();
    if (this.bytes > this.consumed) input.write(Buffer.concat(this.chunks, this.bytes).subarray(this.consumed));
    // A read error ends the input like EOF: what was read before it is still served.
    if (this.failure || this.ended) input.end();
    else {
      this.stdin.on("error", (error) => input.destroy(error));
      this.stdin.pipe(input);
    }
    return { input, answered: this.answered };
  }

  private read(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.bytes += chunk.length;
    if (this.firstLineRead) return;
    const newline = chunk.indexOf(0x0a);
    if (newline < 0 && this.bytes <= FIRST_LINE_LIMIT) return;
    // Decided once, on the first line: the rest waits in the pipe until the server takes over.
    this.firstLineRead = true;
    this.stdin.pause();
    const lineBytes = this.bytes - chunk.length + newline;
    if (newline >= 0 && lineBytes < Math.min(FIRST_LINE_LIMIT, this.stamp.maxMessageBytes)) {
      const answered = this.answer(Buffer.concat(this.chunks, this.bytes).subarray(0, lineBytes).toString("utf8").trim());
      if (answered) this.consumed = lineBytes + 1;
    }
  }

  private answer(text: string): boolean {
    const request = readPlainInitialize(text);
    if (!request || !isHeaderValue(request.params.clientInfo.name)) return false;
    const line = serializeMessage({ id: request.id, result: describeServer(request.params.clientInfo, this.home) }, this.stamp.includeJsonrpc);
    this.stdout.write(line);
    this.answered = { id: request.id, params: request.params, line };
    return true;
  }
}
