import type OpenAI from "../../vendor/openai.js";
import type { ModelClient, ModelEvent, ModelRequest } from "./modelClient.js";
import { connectionError } from "./connectionError.js";
import { ModelError } from "./modelError.js";
import type { ProviderSettings } from "./providers.js";

/**
 * An openai SDK client for a provider. The SDK is loaded on first use so answering `initialize`
 * never pays for it; its own retries are off because the turn runner retries (and announces it).
 */
export async function openaiFor(provider: ProviderSettings): Promise<OpenAI> {
  const { default: OpenAIClient } = await import("../../vendor/openai.js");
  return new OpenAIClient({
    apiKey: provider.apiKey ?? "unused",
    baseURL: provider.baseUrl,
    defaultHeaders: provider.headers,
    defaultQuery: provider.query,
    maxRetries: 0,
    timeout: provider.streamIdleTimeoutMs,
    fetch: nestingErrorBodies,
  });
}

/**
 * fetch, with an error body in the flat shape older vLLM servers answer (`{object: "error",
 * message, type, code}`) nested under `error` as OpenAI's are: the SDK reads only `error`, and
 * would say "400 status code (no body)" instead of the server's reason.
 */
async function nestingErrorBodies(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const response = await fetch(input, init);
  if (response.ok || !response.headers.get("content-type")?.includes("json")) return response;
  const text = await response.text();
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON after all: the SDK reports the text itself.
  }
  const flat = typeof body === "object" && body !== null && !("error" in body) && "message" in body;
  return new Response(flat ? JSON.stringify({ error: body }) : text, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/**
 * One wire's streaming call, yielding the model events of each network chunk: `opened()` is called
 * once the HTTP response is there (errors after it are stream errors).
 */
export type WireStream = (sdk: OpenAI, request: ModelRequest, signal: AbortSignal, opened: () => void) => AsyncIterable<readonly ModelEvent[]>;

/** A model client over the openai SDK: loads it once, runs the wire's stream, turns whatever fails into a ModelError. */
export function sdkModelClient(provider: ProviderSettings, wire: WireStream): ModelClient {
  let sdk: Promise<OpenAI> | undefined;
  // A load that failed is tried again by the next call rather than failing every later turn.
  const load = (): Promise<OpenAI> =>
    (sdk ??= openaiFor(provider).catch((error: unknown) => {
      sdk = undefined;
      throw error;
    }));
  return {
    prepare: async () => void (await load()),
    async *stream(request, signal) {
      const client = await load();
      let isOpen = false;
      try {
        yield* wire(client, request, signal, () => (isOpen = true));
      } catch (error) {
        if (signal.aborted) throw signal.reason;
        throw await toModelError(error, isOpen, provider);
      }
    },
  };
}

/**
 * Classifies anything the SDK threw into a {@link ModelError}; `opened` says whether a stream had
 * started. Both wires fail through here, so their messages are the same.
 */
export async function toModelError(error: unknown, opened: boolean, provider: ProviderSettings): Promise<ModelError> {
  if (error instanceof ModelError) return error;
  const { APIError, APIConnectionError } = await import("../../vendor/openai.js");
  if (error instanceof APIError && typeof error.status === "number") {
    const status = error.status;
    const retryAfterMs = retryAfter(error.headers);
    const body = error.error as { code?: unknown; type?: unknown } | undefined;
    const code = String(body?.code ?? body?.type ?? "");
    if (code === "context_length_exceeded") {
      return new ModelError(
        "The conversation no longer fits in the model's context window. Start a new thread or compact this one.",
        "fatal",
        "contextWindowExceeded",
        { status },
      );
    }
    if (status === 429 && code === "insufficient_quota") return new ModelError(error.message, "fatal", "usageLimitExceeded", { status });
    if (status === 429) return new ModelError(error.message, "request", "rateLimitExceeded", { status, retryAfterMs });
    if (status >= 500) {
      return new ModelError(error.message, "request", status === 503 ? "serverOverloaded" : "internalServerError", {
        status,
        retryAfterMs,
      });
    }
    if (status === 401 || status === 403) return new ModelError(error.message, "fatal", "unauthorized", { status });
    if (status === 404) return new ModelError(error.message, "fatal", "modelNotFound", { status });
    if (status === 400) return new ModelError(error.message, "fatal", "badRequest", { status });
    return new ModelError(error.message, "fatal", "other", { status });
  }
  if (error instanceof APIConnectionError && !opened) return connectionError(error, provider);
  if (error instanceof APIError && error.status === undefined) {
    // An `error` event inside an open stream.
    return new ModelError(error.message, "stream", { responseStreamDisconnected: { httpStatusCode: null } });
  }
  return new ModelError(`stream disconnected: ${causeOf(error)}`, "stream", {
    responseStreamDisconnected: { httpStatusCode: null },
  });
}

function causeOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: unknown }).cause;
  return cause instanceof Error ? `${error.message} (${cause.message})` : error.message;
}

/** Retry-After in ms: `retry-after-ms`, or `retry-after` as seconds or an HTTP date. */
function retryAfter(headers: Headers | undefined): number | null {
  const ms = Number.parseFloat(headers?.get("retry-after-ms") ?? "");
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers?.get("retry-after");
  if (!value) return null;
  const seconds = Number.parseFloat(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isFinite(date) ? Math.max(0, date - Date.now()) : null;
}
