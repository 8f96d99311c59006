import type { CodexErrorInfo } from "../../protocol/turn.js";

/** How a model call failed; decides whether and how it is retried. */
export type ModelErrorKind =
  /** The HTTP request failed before a stream opened (connection refused, 429, 5xx): retried silently first. */
  | "request"
  /** The stream broke, stalled or ended early: retried with a "Reconnecting..." notice. */
  | "stream"
  /** Nothing listens at the provider's loopback address: retried once, quickly, then the turn fails. */
  | "refused"
  /** Retrying cannot help (4xx, bad configuration, context window exceeded). */
  | "fatal";

/** A failed model call, as a value the turn runner can classify, announce and report. */
export class ModelError extends Error {
  constructor(
    message: string,
    readonly kind: ModelErrorKind,
    readonly info: CodexErrorInfo,
    readonly options: { readonly status?: number | null; readonly retryAfterMs?: number | null } = {},
  ) {
    super(message);
    this.name = "ModelError";
  }

  /** The HTTP status of the failure, when there was one. */
  get status(): number | null {
    return this.options.status ?? null;
  }
}
