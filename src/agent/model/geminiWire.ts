import { randomUUID } from "node:crypto";
import type { GoogleGenAI, HttpOptions } from "../../vendor/genai.js";
import { connectionError } from "./connectionError.js";
import { GeminiAssembly } from "./geminiAssembly.js";
import { geminiConfig } from "./geminiConfig.js";
import { geminiPrompt } from "./geminiContents.js";
import { geminiFailure } from "./geminiFailure.js";
import { causeOf, httpModelError, streamBroke } from "./httpFailure.js";
import { lazyModelClient } from "./lazyClient.js";
import type { ModelClient, ModelEvent, ModelRequest } from "./modelClient.js";
import { ModelError } from "./modelError.js";
import type { ProviderSettings } from "./providers.js";

/**
 * Google's Gemini API (`POST /v1beta/models/<model>:streamGenerateContent?alt=sse`) through
 * `@google/genai`, loaded on the first turn that needs it. The SDK sends each request once (it
 * retries only when given `retryOptions`): the turn runner retries, and says so.
 */
export function geminiClient(provider: ProviderSettings): ModelClient {
  return lazyModelClient(() => genaiFor(provider), streamGemini, (error, opened) => toModelError(error, opened, provider));
}

async function genaiFor(provider: ProviderSettings): Promise<GoogleGenAI> {
  const { GoogleGenAI } = await import("../../vendor/genai.js");
  const httpOptions: HttpOptions = { ...apiVersionOf(provider.baseUrl), headers: { ...provider.headers } };
  if (Object.keys(provider.query).length > 0) httpOptions.fetch = withQuery(provider.query);
  return new GoogleGenAI({
    // Not from GOOGLE_GENAI_USE_VERTEXAI: this wire speaks the Gemini API.
    vertexai: false,
    // Given even without a key, or the SDK would take one from the environment (or Google Cloud's).
    apiKey: provider.apiKey ?? "unused",
    httpOptions,
  });
}

/**
 * The SDK's base URL and API version of a `base_url`: one ending in a version (`…/v1beta`, as
 * Google's docs write it) sets the version, which the SDK would otherwise add a second time.
 */
function apiVersionOf(baseUrl: string): Pick<HttpOptions, "baseUrl" | "apiVersion"> {
  const match = /^(.*?)\/(v\d+(?:alpha|beta)?\d*)\/?$/.exec(baseUrl);
  return match ? { baseUrl: match[1]!, apiVersion: match[2]! } : { baseUrl };
}

/** fetch, with the provider's `query_params` added to every URL (the SDK has no option for them). */
function withQuery(query: Readonly<Record<string, string>>): NonNullable<HttpOptions["fetch"]> {
  return (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
    return fetch(url, init);
  };
}

/** One streamed response: `opened()` is called once the HTTP answer is there (errors after it are stream errors). */
async function* streamGemini(ai: GoogleGenAI, request: ModelRequest, signal: AbortSignal, opened: () => void): AsyncGenerator<readonly ModelEvent[]> {
  const { systemInstruction, contents } = geminiPrompt(request);
  // The SDK's automatic continuation stays on: it sends another request only with a
  // continuationToken the API gave (a long response in parts), so no other request goes twice.
  const stream = await ai.models.generateContentStream({ model: request.model, contents, config: geminiConfig(request, systemInstruction, signal) });
  opened();
  const assembly = new GeminiAssembly(new Set(request.tools.filter((tool) => tool.kind === "custom").map((tool) => tool.name)), randomUUID());
  for await (const chunk of stream) {
    const events: ModelEvent[] = [];
    assembly.add(chunk, events);
    if (events.length > 0) yield events;
  }
  yield assembly.finish();
}

/**
 * Classifies what the SDK threw, as the other wires do, with Google's own message: an `ApiError`
 * before the stream opened is an HTTP error answer, one after it an error inside the stream; fetch's
 * TypeError before it opened is a connection that failed; anything else before it is the SDK
 * refusing the request, which no retry changes.
 */
async function toModelError(error: unknown, opened: boolean, provider: ProviderSettings): Promise<ModelError> {
  if (error instanceof ModelError) return error;
  const { ApiError } = await import("../../vendor/genai.js");
  if (error instanceof ApiError) {
    const failure = geminiFailure(error.status, error.message);
    return opened && !failure.contextOverflow ? streamBroke(failure.message) : httpModelError(failure, provider);
  }
  if (opened) return streamBroke(`stream disconnected: ${causeOf(error)}`);
  // fetch fails with a TypeError whose cause says why; a TypeError without one is a bug, not the network.
  if (error instanceof TypeError && error.cause !== undefined) return connectionError(error, provider);
  return new ModelError(error instanceof Error ? error.message : String(error), "fatal", "other");
}
