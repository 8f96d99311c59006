import type { HttpFailure } from "./httpFailure.js";

/** Google's error body: `{error: {code, message, status, details}}`. */
interface GoogleError {
  readonly message?: unknown;
  readonly status?: unknown;
  readonly details?: unknown;
}

/**
 * A Gemini error in the shared terms, from what the SDK's `ApiError` holds: its status, and a
 * message embedding Google's JSON body (alone for an HTTP error; after "got status: …. " for an
 * error inside the stream). The code is Google's status (`RESOURCE_EXHAUSTED`…), the wait its
 * RetryInfo; a key Google calls invalid (which it answers with 400) counts as a 401, so the turn
 * names the key's variable.
 */
export function geminiFailure(status: number, sdkMessage: string): HttpFailure {
  const error = googleError(sdkMessage);
  const message = typeof error?.message === "string" && error.message ? error.message : sdkMessage;
  const details = Array.isArray(error?.details) ? (error.details as unknown[]).filter(isRecord) : [];
  const keyInvalid = details.some((detail) => detail.reason === "API_KEY_INVALID");
  return {
    status: keyInvalid ? 401 : status,
    message,
    code: typeof error?.status === "string" ? error.status : "",
    retryAfterMs: retryDelay(details),
    // "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)."
    contextOverflow: status === 400 && /token count .*exceeds the maximum/i.test(message),
  };
}

/** The `error` object of the JSON in the SDK's message, if there is one. */
function googleError(sdkMessage: string): GoogleError | null {
  const start = sdkMessage.indexOf("{");
  if (start < 0) return null;
  try {
    const body: unknown = JSON.parse(sdkMessage.slice(start));
    return isRecord(body) && isRecord(body.error) ? body.error : null;
  } catch {
    return null;
  }
}

/** RetryInfo's `retryDelay` ("12s", "0.5s") in ms, or null when Google gave none. */
function retryDelay(details: readonly Record<string, unknown>[]): number | null {
  for (const detail of details) {
    const match = typeof detail.retryDelay === "string" ? /^(\d+(?:\.\d+)?)s$/.exec(detail.retryDelay) : null;
    if (match) return Number.parseFloat(match[1]!) * 1000;
  }
  return null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}
