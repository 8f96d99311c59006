import { callOf, deltasOf, usageOf, type MockEvent, type ScriptedCall } from "./mockEvents.js";
import type { MockResponse } from "./mockScript.js";

type ToolCallStyle = NonNullable<NonNullable<MockResponse["chat"]>["toolCalls"]>;

type Chunk = (delta: Record<string, unknown>, finish?: string | null, isDelta?: boolean) => MockEvent;

/**
 * The Chat Completions stream of a scripted response (custom tools become functions with `input`),
 * streamed in the style `response.chat` picks: how tool calls are cut into chunks, where usage
 * comes, which field carries reasoning.
 */
export function* chatEvents(response: MockResponse, responseId: string, model: string): Generator<MockEvent> {
  const style = response.chat ?? {};
  const data = (choices: unknown[], extra: Record<string, unknown> = {}) => ({ id: responseId, object: "chat.completion.chunk", model, choices, ...extra });
  const chunk: Chunk = (delta, finish = null, isDelta = false) => ({ data: data([{ index: 0, delta, finish_reason: finish }]), isDelta });
  yield chunk({ role: "assistant" });
  let calls = 0;
  for (const [index, item] of response.items.entries()) {
    if (item.type === "message") {
      for (const delta of deltasOf(item)) yield chunk({ content: delta }, null, true);
      continue;
    }
    if (item.type === "reasoning") {
      const field = style.reasoningField ?? "reasoning_content";
      for (const text of [...(item.summary ?? []), ...(item.content ?? [])]) yield chunk({ [field]: text }, null, true);
      continue;
    }
    const call = callOf(item, `call_${responseId}_${index}`);
    if (!call) continue;
    yield* toolCallChunks(call, style.toolCalls === "sameIndex" ? 0 : calls, style.toolCalls ?? "whole", chunk);
    calls++;
  }
  if (response.hang) return;
  const counts = usageOf(response);
  const usage = {
    prompt_tokens: counts.input,
    completion_tokens: counts.output,
    total_tokens: counts.total,
    prompt_tokens_details: { cached_tokens: counts.cached },
    completion_tokens_details: { reasoning_tokens: counts.reasoning },
  };
  const finish = calls > 0 ? "tool_calls" : "stop";
  if (style.usage === "withFinish") {
    yield { data: data([{ index: 0, delta: {}, finish_reason: finish }], { usage }), isDelta: false };
    return;
  }
  yield chunk({}, finish);
  if (style.usage !== "none") yield { data: data([], { usage }), isDelta: false };
}

/** One tool call's chunks: whole, or its arguments in pieces with or without the id and name repeated. */
function* toolCallChunks(call: ScriptedCall, index: number, style: ToolCallStyle, chunk: Chunk): Generator<MockEvent> {
  const args = call.kind === "custom" ? JSON.stringify({ input: call.payload }) : call.payload;
  const head = { index, id: call.callId, type: "function" };
  if (style === "whole" || style === "sameIndex") {
    yield chunk({ tool_calls: [{ ...head, function: { name: call.name, arguments: args } }] });
    return;
  }
  const half = Math.ceil(args.length / 2);
  const pieces = ["", args.slice(0, half), args.slice(half)];
  for (const [n, piece] of pieces.entries()) {
    const part = style === "repeated" || n === 0 ? { ...head, function: { name: call.name, arguments: piece } } : { index, function: { arguments: piece } };
    yield chunk({ tool_calls: [part] });
  }
}
