import { callOf, deltasOf, usageOf, type MockEvent } from "./mockEvents.js";
import type { MockResponse } from "./mockScript.js";

/** Anthropic's error `type` for an HTTP status. */
const ERROR_TYPES: Readonly<Record<number, string>> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  529: "overloaded_error",
};

/** An error answer's body as the Messages API sends it. */
export function anthropicErrorBody(status: number, message: string): unknown {
  return { type: "error", error: { type: ERROR_TYPES[status] ?? "api_error", message } };
}

/**
 * The Messages API stream of a scripted response, as Anthropic sends it: `message_start` with the
 * input usage, a `ping`, one content block per item (text deltas; thinking deltas then the
 * signature; a tool's input as `input_json_delta` pieces, a freeform tool's as `{input}`),
 * `message_delta` with the stop reason and output usage, `message_stop`. A scripted `failed`
 * becomes an `error` event mid-stream.
 */
export function* anthropicEvents(response: MockResponse, responseId: string, model: string): Generator<MockEvent> {
  const event = (data: Record<string, unknown>, isDelta = false): MockEvent => ({ data, isDelta });
  const counts = usageOf(response);
  const messageId = `msg_${responseId}`;
  yield event({
    type: "message_start",
    message: {
      id: messageId,
      type: "message",
      role: "assistant",
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: counts.input - counts.cached, cache_creation_input_tokens: 0, cache_read_input_tokens: counts.cached, output_tokens: 1 },
    },
  });
  yield event({ type: "ping" });
  let calls = 0;
  for (const [index, item] of response.items.entries()) {
    if (item.type === "message") {
      yield event({ type: "content_block_start", index, content_block: { type: "text", text: "" } });
      for (const text of deltasOf(item)) yield event({ type: "content_block_delta", index, delta: { type: "text_delta", text } }, true);
      yield event({ type: "content_block_stop", index });
      continue;
    }
    if (item.type === "reasoning") {
      yield event({ type: "content_block_start", index, content_block: { type: "thinking", thinking: "", signature: "" } });
      for (const thinking of [...(item.summary ?? []), ...(item.content ?? [])]) {
        yield event({ type: "content_block_delta", index, delta: { type: "thinking_delta", thinking } }, true);
      }
      const signature = item.encryptedContent ?? `sig_${responseId}_${index}`;
      yield event({ type: "content_block_delta", index, delta: { type: "signature_delta", signature } });
      yield event({ type: "content_block_stop", index });
      continue;
    }
    const call = callOf(item, `toolu_${responseId}_${index}`);
    if (!call) continue;
    calls++;
    const json = call.kind === "custom" ? JSON.stringify({ input: call.payload }) : call.payload;
    const half = Math.ceil(json.length / 2);
    yield event({ type: "content_block_start", index, content_block: { type: "tool_use", id: call.callId, name: call.name, input: {} } });
    for (const partial_json of [json.slice(0, half), json.slice(half)]) {
      yield event({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json } });
    }
    yield event({ type: "content_block_stop", index });
  }
  if (response.failed) {
    yield event({ type: "error", error: { type: response.failed.code ?? "overloaded_error", message: response.failed.message ?? "Overloaded" } });
    return;
  }
  if (response.hang) return;
  yield event({
    type: "message_delta",
    delta: { stop_reason: calls > 0 ? "tool_use" : "end_turn", stop_sequence: null },
    usage: { output_tokens: counts.output, ...(counts.reasoning > 0 ? { output_tokens_details: { thinking_tokens: counts.reasoning } } : {}) },
  });
  yield event({ type: "message_stop" });
}
