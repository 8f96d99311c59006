import type { MockItem, MockResponse } from "./mockScript.js";

/** One server-sent event: its JSON payload, and whether it carries text (paced by `deltaDelayMs`). */
export interface MockEvent {
  readonly data: Record<string, unknown>;
  readonly isDelta: boolean;
}

/** A scripted tool call, whatever shortcut the script used. */
export interface ScriptedCall {
  readonly kind: "function" | "custom";
  readonly name: string;
  readonly payload: string;
  readonly callId: string;
}

/** The text deltas a scripted message streams. */
export function deltasOf(item: Extract<MockItem, { type: "message" }>): string[] {
  if (item.repeat) return Array.from({ length: item.repeat }, () => item.delta ?? "x");
  return item.deltas ?? [item.text ?? ""];
}

/** The tool call a scripted item makes, or null when it is no call. */
export function callOf(item: MockItem, fallbackId: string): ScriptedCall | null {
  switch (item.type) {
    case "function_call": {
      const args = item.arguments ?? {};
      return { kind: "function", name: item.name, payload: typeof args === "string" ? args : JSON.stringify(args), callId: item.callId ?? fallbackId };
    }
    case "custom_tool_call":
      return { kind: "custom", name: item.name, payload: item.input ?? "", callId: item.callId ?? fallbackId };
    case "exec": {
      const { type: _type, callId, tool, ...args } = item;
      return { kind: "function", name: tool ?? "exec_command", payload: JSON.stringify({ yield_time_ms: 500, ...args }), callId: callId ?? fallbackId };
    }
    case "shell": {
      const { type: _type, callId, tool, ...args } = item;
      const name = tool ?? (Array.isArray(item.command) ? "shell" : "shell_command");
      return { kind: "function", name, payload: JSON.stringify(args), callId: callId ?? fallbackId };
    }
    case "apply_patch":
      return item.as === "function"
        ? { kind: "function", name: "apply_patch", payload: JSON.stringify({ input: item.patch }), callId: item.callId ?? fallbackId }
        : { kind: "custom", name: "apply_patch", payload: item.patch, callId: item.callId ?? fallbackId };
    default:
      return null;
  }
}

/** The token counts a scripted response reports. */
export function usageOf(response: MockResponse) {
  const usage = response.usage ?? {};
  const input = usage.input_tokens ?? 10;
  const output = usage.output_tokens ?? 5;
  return { input, cached: usage.cached_tokens ?? 0, output, reasoning: usage.reasoning_tokens ?? 0, total: usage.total_tokens ?? input + output };
}

/** The Responses API stream of a scripted response. */
export function* responsesEvents(response: MockResponse, responseId: string): Generator<MockEvent> {
  const event = (data: Record<string, unknown>, isDelta = false): MockEvent => ({ data, isDelta });
  yield event({ type: "response.created", response: { id: responseId, object: "response", status: "in_progress" } });
  for (const [index, item] of response.items.entries()) {
    const base = { output_index: index };
    if (item.type === "message") {
      const id = item.id ?? `msg_${responseId}_${index}`;
      const deltas = deltasOf(item);
      const text = item.text ?? deltas.join("");
      yield event({ type: "response.output_item.added", ...base, item: { type: "message", id, role: "assistant", status: "in_progress", content: [] } });
      yield event({ type: "response.content_part.added", ...base, item_id: id, content_index: 0, part: { type: "output_text", text: "" } });
      for (const delta of deltas) yield event({ type: "response.output_text.delta", ...base, item_id: id, content_index: 0, delta }, true);
      yield event({ type: "response.output_text.done", ...base, item_id: id, content_index: 0, text });
      const content = [{ type: "output_text", text, annotations: [] }];
      yield event({ type: "response.output_item.done", ...base, item: { type: "message", id, role: "assistant", status: "completed", content } });
      continue;
    }
    if (item.type === "reasoning") {
      const id = item.id ?? `rs_${responseId}_${index}`;
      const summary = item.summary ?? [];
      const content = item.content ?? [];
      yield event({ type: "response.output_item.added", ...base, item: { type: "reasoning", id, summary: [] } });
      for (const [part, text] of summary.entries()) {
        yield event({ type: "response.reasoning_summary_part.added", ...base, item_id: id, summary_index: part, part: { type: "summary_text", text: "" } });
        yield event({ type: "response.reasoning_summary_text.delta", ...base, item_id: id, summary_index: part, delta: text }, true);
      }
      for (const [part, text] of content.entries()) {
        yield event({ type: "response.reasoning_text.delta", ...base, item_id: id, content_index: part, delta: text }, true);
      }
      yield event({
        type: "response.output_item.done",
        ...base,
        item: {
          type: "reasoning",
          id,
          summary: summary.map((text) => ({ type: "summary_text", text })),
          content: content.map((text) => ({ type: "reasoning_text", text })),
          encrypted_content: item.encryptedContent ?? null,
        },
      });
      continue;
    }
    const call = callOf(item, `call_${responseId}_${index}`);
    if (!call) continue;
    const id = `${call.kind === "custom" ? "ctc" : "fc"}_${responseId}_${index}`;
    const done =
      call.kind === "custom"
        ? { type: "custom_tool_call", id, call_id: call.callId, name: call.name, input: call.payload, status: "completed" }
        : { type: "function_call", id, call_id: call.callId, name: call.name, arguments: call.payload, status: "completed" };
    yield event({ type: "response.output_item.added", ...base, item: { ...done, ...(call.kind === "custom" ? { input: "" } : { arguments: "" }), status: "in_progress" } });
    const deltaType = call.kind === "custom" ? "response.custom_tool_call_input.delta" : "response.function_call_arguments.delta";
    yield event({ type: deltaType, ...base, item_id: id, delta: call.payload });
    yield event({ type: "response.output_item.done", ...base, item: done });
  }
  if (response.failed) {
    yield event({ type: "response.failed", response: { id: responseId, status: "failed", error: { code: response.failed.code ?? "server_error", message: response.failed.message ?? "scripted failure" } } });
    return;
  }
  if (response.hang) return;
  const usage = usageOf(response);
  yield event({
    type: "response.completed",
    response: {
      id: responseId,
      object: "response",
      status: "completed",
      usage: {
        input_tokens: usage.input,
        input_tokens_details: { cached_tokens: usage.cached },
        output_tokens: usage.output,
        output_tokens_details: { reasoning_tokens: usage.reasoning },
        total_tokens: usage.total,
      },
    },
  });
}
