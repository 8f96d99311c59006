import type Anthropic from "../../vendor/anthropic.js";
import { AnthropicAssembly, type MessagesStreamEvent } from "./anthropicAssembly.js";
import { messagesBody } from "./anthropicMessages.js";
import { connectionError } from "./connectionError.js";
import { causeOf, httpModelError, retryAfter, streamBroke } from "./httpFailure.js";
import { lazyModelClient, sdkOptions } from "./lazyClient.js";
import type { ModelClient, ModelEvent, ModelRequest } from "./modelClient.js";
import { ModelError } from "./modelError.js";
import type { ProviderSettings } from "./providers.js";
import { ssePayloads } from "./ssePayloads.js";

/** Models before extended thinking, with their output limits; every later Claude takes 32,000 output tokens or more. */
const OLDER_MODELS: ReadonlyArray<readonly [RegExp, number]> = [
  [/^claude-3-opus|^claude-3-sonnet|^claude-3-haiku/, 4096],
  [/^claude-3-5-/, 8192],
];
const MAX_TOKENS = 32_000;

/** Thinking budgets by reasoning effort: each leaves room under {@link MAX_TOKENS} for the answer. */
const THINKING_BUDGETS: Readonly<Record<string, number>> = { low: 4_000, medium: 10_000, high: 20_000, xhigh: 24_000 };

/**
 * Anthropic's Messages API (`POST /v1/messages`, streaming) through `@anthropic-ai/sdk`, loaded
 * on the first turn that needs it. The SDK's own retries are off: the turn runner retries, and
 * says so.
 */
export function anthropicClient(provider: ProviderSettings): ModelClient {
  return lazyModelClient(() => anthropicFor(provider), streamMessages, (error, opened) => toModelError(error, opened, provider));
}

async function anthropicFor(provider: ProviderSettings): Promise<Anthropic> {
  const { default: AnthropicClient } = await import("../../vendor/anthropic.js");
  return new AnthropicClient(sdkOptions(provider));
}

async function* streamMessages(client: Anthropic, request: ModelRequest, signal: AbortSignal, opened: () => void): AsyncGenerator<readonly ModelEvent[]> {
  const older = OLDER_MODELS.find(([pattern]) => pattern.test(request.model));
  const effort = request.reasoning?.effort;
  const budget = !older && effort ? (THINKING_BUDGETS[effort] ?? null) : null;
  const body = messagesBody(request, older?.[1] ?? MAX_TOKENS, budget);
  const response = await client.messages.create(body as never, { signal }).asResponse();
  opened();
  const assembly = new AnthropicAssembly(new Set(request.tools.filter((tool) => tool.kind === "custom").map((tool) => tool.name)));
  for await (const payloads of ssePayloads(response.body)) {
    const events: ModelEvent[] = [];
    assembly.add(payloads as MessagesStreamEvent[], events);
    if (events.length > 0) yield events;
  }
  yield assembly.finish();
}

/** Anthropic's error body: `{type: "error", error: {type, message}}`. */
interface ErrorBody {
  readonly error?: { readonly type?: string; readonly message?: string };
}

/** Classifies what the SDK threw, as the OpenAI wires do; the message is Anthropic's own. */
async function toModelError(error: unknown, opened: boolean, provider: ProviderSettings): Promise<ModelError> {
  if (error instanceof ModelError) return error;
  const { APIError, APIConnectionError } = await import("../../vendor/anthropic.js");
  if (error instanceof APIError && typeof error.status === "number") {
    const body = (error.error as ErrorBody | undefined)?.error;
    const message = body?.message ?? error.message;
    // Anthropic says "prompt is too long: N tokens > M maximum" (or that input and max_tokens exceed the limit).
    const contextOverflow = error.status === 400 && /prompt is too long|exceed(s)? (the )?context (window|limit)/i.test(message);
    return httpModelError({ status: error.status, message, code: body?.type ?? "", retryAfterMs: retryAfter(error.headers), contextOverflow }, provider);
  }
  if (error instanceof APIConnectionError && !opened) return connectionError(error, provider);
  return streamBroke(`stream disconnected: ${causeOf(error)}`);
}
