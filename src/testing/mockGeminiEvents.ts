import { callOf, deltasOf, usageOf, type MockEvent } from "./mockEvents.js";
import type { MockItem, MockResponse } from "./mockScript.js";

/** Google's names of HTTP statuses, as its error bodies spell them. */
const STATUSES: Readonly<Record<number, string>> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  429: "RESOURCE_EXHAUSTED",
  500: "INTERNAL",
  503: "UNAVAILABLE",
  504: "DEADLINE_EXCEEDED",
};

type Part = Record<string, unknown>;

/**
 * Gemini's `streamGenerateContent?alt=sse` stream of a scripted response, chunk by chunk as the API
 * sends them: thoughts (a reasoning item's summary and content) as `thought` parts, text deltas,
 * consecutive function calls in one chunk (custom tools as functions with `input`; ids only where
 * the script gave them), then a last chunk with the finish reason and `usageMetadata`. A response
 * with a reasoning item is signed (its `encryptedContent`, else `sig_<responseId>`): on its first
 * function call, else on the empty text part that ends the stream. `failed` ends the stream with
 * Google's error object (its status `failed.code` when that is a Google status such as
 * UNAVAILABLE, else INTERNAL).
 */
export function* geminiEvents(response: MockResponse, responseId: string, model: string): Generator<MockEvent> {
  // The last chunk finishes the candidate and carries the usage.
  const chunk = (parts: Part[], isDelta: boolean, last?: { usageMetadata: object }): MockEvent => ({
    data: {
      candidates: [{ content: { role: "model", parts }, index: 0, ...(last ? { finishReason: "STOP" } : {}) }],
      ...last,
      modelVersion: model,
      responseId,
    },
    isDelta,
  });
  const reasoning = response.items.find((item) => item.type === "reasoning");
  let signature = reasoning ? (reasoning.encryptedContent ?? `sig_${responseId}`) : null;
  let calls: Part[] = [];
  for (const [index, item] of response.items.entries()) {
    const call = callOf(item, `call_${responseId}_${index}`);
    if (call) {
      const args = call.kind === "custom" ? { input: call.payload } : argsOf(call.payload);
      const id = explicitId(item);
      calls.push({ functionCall: { name: call.name, args, ...(id ? { id } : {}) }, ...(signature ? { thoughtSignature: signature } : {}) });
      // Only the first of parallel calls is signed.
      signature = null;
      continue;
    }
    if (calls.length > 0) yield chunk(calls, false);
    calls = [];
    if (item.type === "reasoning") {
      for (const text of [...(item.summary ?? []), ...(item.content ?? [])]) yield chunk([{ text, thought: true }], true);
    } else if (item.type === "message") {
      for (const delta of deltasOf(item)) yield chunk([{ text: delta }], true);
    }
  }
  if (calls.length > 0) yield chunk(calls, false);
  if (response.failed) {
    const status = /^[A-Z_]+$/.test(response.failed.code ?? "") ? response.failed.code! : "INTERNAL";
    const code = Number(Object.entries(STATUSES).find(([, name]) => name === status)?.[0] ?? 500);
    yield { data: { error: { code, message: response.failed.message ?? "scripted failure", status } }, isDelta: false };
    return;
  }
  if (response.hang) return;
  const usage = usageOf(response);
  const usageMetadata = {
    promptTokenCount: usage.input,
    candidatesTokenCount: usage.output - usage.reasoning,
    totalTokenCount: usage.total,
    promptTokensDetails: [{ modality: "TEXT", tokenCount: usage.input }],
    ...(usage.cached ? { cachedContentTokenCount: usage.cached } : {}),
    ...(usage.reasoning ? { thoughtsTokenCount: usage.reasoning } : {}),
  };
  yield chunk([signature ? { text: "", thoughtSignature: signature } : { text: "" }], false, { usageMetadata });
}

/** Google's error body for an HTTP status. */
export function geminiErrorBody(status: number, message: string): unknown {
  return { error: { code: status, message, status: STATUSES[status] ?? "UNKNOWN" } };
}

/** A call's arguments as the object Gemini sends (`{}` for a script's non-object arguments). */
function argsOf(payload: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(payload);
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** The call id the script gave, if it gave one: Gemini 2.5 sends calls without ids, the wire makes them. */
function explicitId(item: MockItem): string | undefined {
  return "callId" in item && typeof item.callId === "string" ? item.callId : undefined;
}
