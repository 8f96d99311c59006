import type OpenAI from "../../vendor/openai.js";
import { lazyModelClient, sdkOptions, type SdkStream } from "./lazyClient.js";
import type { ModelClient } from "./modelClient.js";
import { connectionError } from "./connectionError.js";
import { causeOf, httpModelError, retryAfter, streamBroke } from "./httpFailure.js";
import { ModelError } from "./modelError.js";
import type { ProviderSettings } from "./providers.js";

/**
 * An openai SDK client for a provider. The SDK is loaded on first use so answering `initialize`
 * never pays for it; its own retries are off because the turn runner retries (and announces it).
 */
export async function openaiFor(provider: ProviderSettings): Promise<OpenAI> {
  const { default: OpenAIClient } = await import("../../vendor/openai.js");
  return new OpenAIClient({ ...sdkOptions(provider), fetch: nestingErrorBodies });
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

/** One OpenAI wire's streaming call, yielding the model events of each network chunk. */
export type WireStream = SdkStream<OpenAI>;

/** A model client over the openai SDK: loads it once, runs the wire's stream, turns whatever fails into a ModelError. */
export function sdkModelClient(provider: ProviderSettings, wire: WireStream): ModelClient {
  return lazyModelClient(() => openaiFor(provider), wire, (error, opened) => toModelError(error, opened, provider));
}

/**
 * Classifies anything the SDK threw into a {@link ModelError}; `opened` says whether a stream had
 * started. Both wires fail through here, so their messages are the same.
 */
export async function toModelError(error: unknown, opened: boolean, provider: ProviderSettings): Promise<ModelError> {
  if (error instanceof ModelError) return error;
  const { APIError, APIConnectionError } = await import("../../vendor/openai.js");
  if (error instanceof APIError && typeof error.status === "number") {
    const body = error.error as { code?: unknown; type?: unknown } | undefined;
    const code = String(body?.code ?? body?.type ?? "");
    return httpModelError({ status: error.status, message: error.message, code, retryAfterMs: retryAfter(error.headers), contextOverflow: false }, provider);
  }
  if (error instanceof APIConnectionError && !opened) return connectionError(error, provider);
  // An `error` event inside an open stream, or the connection cut mid-stream.
  if (error instanceof APIError && error.status === undefined) return streamBroke(error.message);
  return streamBroke(`stream disconnected: ${causeOf(error)}`);
}
