import { PassThrough, Writable } from "node:stream";
import type { WebSocket } from "ws";

const NEWLINE = Buffer.from("\n");
const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;

/** Options of {@link webSocketStreams}. */
export interface WebSocketStreamOptions {
  /** Unsent bytes a client may leave queued before it is disconnected (it stopped reading). */
  readonly maxBufferedBytes: number;
  /** How long the queue may stay over that bound (one big message may pass it for a moment). */
  readonly slowClientGraceMs: number;
  /** Called once when the client is disconnected for not reading. */
  readonly onSlowClient: () => void;
  /** A protocol error on the socket (an oversized frame, a bad close); ws closes the socket after it. */
  readonly onError: (error: Error) => void;
}

/**
 * A WebSocket as the newline-delimited byte streams the rest of the server speaks: each text
 * frame becomes one input line, each output line one frame. Line breaks inside a frame are JSON
 * whitespace and become spaces, so a frame is always one message (two messages in one frame fail
 * to parse and are answered with an error).
 */
export function webSocketStreams(socket: WebSocket, options: WebSocketStreamOptions): { input: PassThrough; output: Writable } {
  const input = new PassThrough();
  // Without a listener a socket error (an oversized message) would crash the whole server.
  socket.on("error", (error) => options.onError(error));
  socket.on("message", (data, isBinary) => {
    if (isBinary) return;
    // The frame's own bytes, edited in place and passed on whole: no string copies of a large message.
    const bytes = spaceOutLineBreaks(data as Buffer);
    input.write(bytes);
    input.write(NEWLINE);
  });
  socket.on("close", () => input.end());
  // The start of a line not yet ended: a large result's line comes in many chunks, joined once at its end.
  let partial: Buffer[] = [];
  let dropped = false;
  let overflowTimer: NodeJS.Timeout | undefined;
  // A client that stops reading must not make the server hold its output without bound: if its
  // queue stays over the bound for the grace period, it is disconnected.
  const watchQueue = (): void => {
    if (dropped || socket.bufferedAmount <= options.maxBufferedBytes) {
      clearTimeout(overflowTimer);
      overflowTimer = undefined;
      return;
    }
    overflowTimer ??= setTimeout(() => {
      overflowTimer = undefined;
      if (socket.readyState !== socket.OPEN || socket.bufferedAmount <= options.maxBufferedBytes) return;
      dropped = true;
      options.onSlowClient();
      socket.terminate();
    }, options.slowClientGraceMs);
  };
  const output = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      const lines: string[] = [];
      let start = 0;
      for (let newline = chunk.indexOf(LF); newline !== -1; newline = chunk.indexOf(LF, start)) {
        partial.push(chunk.subarray(start, newline));
        lines.push(Buffer.concat(partial).toString("utf8"));
        partial = [];
        start = newline + 1;
      }
      if (start < chunk.length) partial.push(chunk.subarray(start));
      if (socket.readyState !== socket.OPEN) return callback();
      for (const line of lines) socket.send(line, watchQueue);
      watchQueue();
      callback();
    },
    final(callback) {
      if (socket.readyState === socket.OPEN) socket.close(1000);
      callback();
    },
  });
  socket.on("close", () => clearTimeout(overflowTimer));
  socket.on("close", () => output.destroy());
  return { input, output };
}

/** Turns every CR and LF of a UTF-8 message into a space, in place (neither byte occurs inside a multi-byte character). */
function spaceOutLineBreaks(bytes: Buffer): Buffer {
  for (const breakByte of [LF, CR]) {
    for (let at = bytes.indexOf(breakByte); at !== -1; at = bytes.indexOf(breakByte, at + 1)) bytes[at] = SPACE;
  }
  return bytes;
}
