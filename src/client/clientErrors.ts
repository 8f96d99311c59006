/** The errors the client raises, and the JSON-RPC codes it answers with. */
import type {
  Turn,
} from "./clientTypes.js";

/** Base class of every error the client raises on purpose. */
export class ClientError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** A JSON-RPC error the server answered with, as an exception carrying its code. */
export class AppServerError extends ClientError {
  constructor(
    message: string,
    readonly code: number,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** The connection ended (the server exited or the client closed) before an answer came (code -32000). */
export class ConnectionClosedError extends AppServerError {
  constructor(message: string) {
    super(message, CONNECTION_CLOSED);
  }
}

/** No answer (or event) came within its timeout. The server is not told; its work goes on. */
export class RequestTimeoutError extends ClientError {
  constructor(
    message: string,
    /** The request's method, or the notification waited for. */
    readonly method: string,
    readonly timeoutMs: number,
  ) {
    super(message);
  }
}

/**
 * A turn ran past its timeout: the client sent `turn/interrupt` and waited for `turn/completed`.
 * `turn` is the turn as it ended (status `interrupted`, usually), or null when the turn had not
 * started (`turnId` null) or the server did not confirm the end in time.
 */
export class TurnTimeoutError extends RequestTimeoutError {
  constructor(
    readonly threadId: string,
    readonly turnId: string | null,
    timeoutMs: number,
    readonly turn: Turn | null,
  ) {
    super(`turn ${turnId ?? "(not started)"} of thread ${threadId} did not complete within ${timeoutMs} ms; it was interrupted`, "turn/start", timeoutMs);
  }
}

/**
 * A turn whose text was asked for ended `failed` or `interrupted`: `turn` is the turn as it ended,
 * and `error` its error (what the server said went wrong: the model provider unreachable, a key
 * refused…), null for an interrupted turn. The message carries both.
 */
export class TurnFailedError extends ClientError {
  constructor(readonly turn: Turn) {
    const why = turn.error?.message ? `: ${turn.error.message}` : "";
    super(`turn ${turn.id} ${turn.status === "interrupted" ? "was interrupted" : "failed"}${why}`);
  }

  /** The turn's error, as the server sent it in `turn/completed` (null when it was interrupted without one). */
  get error(): Turn["error"] {
    return this.turn.error;
  }
}

/**
 * The caller's `AbortSignal` fired: the wait stopped (a request's answer is then ignored; a turn
 * is interrupted first, and `turn` is the turn as it ended, or null). `reason` is the signal's.
 */
export class AbortedError extends ClientError {
  constructor(
    message: string,
    readonly reason: unknown,
    readonly turn: Turn | null = null,
  ) {
    super(message, { cause: reason });
    this.name = "AbortError";
  }
}

export const CONNECTION_CLOSED = -32000;
export const METHOD_NOT_FOUND = -32601;
export const INTERNAL_ERROR = -32603;
