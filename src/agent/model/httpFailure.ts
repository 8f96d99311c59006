import { ModelError } from "./modelError.js";
import type { ProviderSettings } from "./providers.js";

/** An HTTP error answer of any provider, in the terms every wire shares. */
export interface HttpFailure {
  readonly status: number;
  /** The provider's own message. */
  readonly message: string;
  /** The provider's error code or type (`insufficient_quota`, `overloaded_error`, `RESOURCE_EXHAUSTED`…), or "". */
  readonly code: string;
  /** How long the provider asked us to wait (Retry-After, or Gemini's RetryInfo), if it said. */
  readonly retryAfterMs: number | null;
  /** Whether the provider said the request does not fit the model's context window. */
  readonly contextOverflow: boolean;
}

/** What the turn says when the conversation outgrew the context window, whichever provider said so. */
const CONTEXT_WINDOW_EXCEEDED = "The conversation no longer fits in the model's context window. Start a new thread or compact this one.";

/**
 * The {@link ModelError} of an HTTP error answer: 429, 5xx and Anthropic's 529 are retried (after
 * the provider's Retry-After when it sent one); 401 and 403 fail at once naming the key's
 * variable; a context overflow fails as Codex's `contextWindowExceeded`.
 */
export function httpModelError(failure: HttpFailure, provider: ProviderSettings): ModelError {
  const { status, message, code, retryAfterMs } = failure;
  if (failure.contextOverflow || code === "context_length_exceeded") {
    return new ModelError(CONTEXT_WINDOW_EXCEEDED, "fatal", "contextWindowExceeded", { status });
  }
  if (status === 429 && code === "insufficient_quota") return new ModelError(message, "fatal", "usageLimitExceeded", { status });
  if (status === 429) return new ModelError(message, "request", "rateLimitExceeded", { status, retryAfterMs });
  if (status >= 500) {
    const overloaded = status === 503 || status === 529;
    return new ModelError(message, "request", overloaded ? "serverOverloaded" : "internalServerError", { status, retryAfterMs });
  }
  if (status === 401 || status === 403) {
    if (!provider.apiKeyVariable) return new ModelError(message, "fatal", "unauthorized", { status });
    const sentence = /[.!?]$/.test(message) ? message : `${message}.`;
    return new ModelError(`${sentence} Check the API key in \`${provider.apiKeyVariable}\`.`, "fatal", "unauthorized", { status });
  }
  if (status === 404) return new ModelError(message, "fatal", "modelNotFound", { status });
  if (status === 400) return new ModelError(message, "fatal", "badRequest", { status });
  return new ModelError(message, "fatal", "other", { status });
}

/** A stream that broke after it opened (an `error` event, a cut connection): retried with a notice. */
export function streamBroke(message: string): ModelError {
  return new ModelError(message, "stream", { responseStreamDisconnected: { httpStatusCode: null } });
}

/** Retry-After in ms: `retry-after-ms`, or `retry-after` as seconds or an HTTP date. */
export function retryAfter(headers: Pick<Headers, "get"> | undefined): number | null {
  const ms = Number.parseFloat(headers?.get("retry-after-ms") ?? "");
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers?.get("retry-after");
  if (!value) return null;
  const seconds = Number.parseFloat(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isFinite(date) ? Math.max(0, date - Date.now()) : null;
}

/** An error's message with its cause's, for connection failures deep in fetch. */
export function causeOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: unknown }).cause;
  return cause instanceof Error ? `${error.message} (${cause.message})` : error.message;
}
