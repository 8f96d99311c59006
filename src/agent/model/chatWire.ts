import type { ConversationItem, ToolCall } from "../conversation.js";
import { modelUsage, type ModelClient, type ModelEvent, type ModelRequest, type ModelUsage, type ToolSpec } from "./modelClient.js";
import { ModelError } from "./modelError.js";
import { sdkModelClient, type WireStream } from "./openaiClient.js";
import { ssePayloads } from "./ssePayloads.js";
import type { ProviderSettings } from "./providers.js";

/** Fields of a Chat Completions stream chunk we read, including the reasoning fields OSS servers add. */
interface ChatChunk {
  readonly id?: string;
  readonly choices?: ReadonlyArray<{
    readonly delta?: {
      readonly content?: string | null;
      readonly reasoning_content?: string | null;
      readonly reasoning?: string | null;
      readonly tool_calls?: ReadonlyArray<{
        readonly index?: number;
        readonly id?: string;
        readonly function?: { readonly name?: string; readonly arguments?: string };
      }>;
    };
    readonly finish_reason?: string | null;
  }>;
  readonly usage?: {
    readonly prompt_tokens?: number;
    readonly completion_tokens?: number;
    readonly total_tokens?: number;
    readonly prompt_tokens_details?: { readonly cached_tokens?: number } | null;
    readonly completion_tokens_details?: { readonly reasoning_tokens?: number } | null;
  } | null;
}

interface PendingCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * Chat Completions (`POST /chat/completions`, streaming) for OpenAI-compatible servers. Freeform
 * (custom) tools become functions with one `input` string, since the chat wire has no custom tools.
 */
export function chatClient(provider: ProviderSettings): ModelClient {
  return sdkModelClient(provider, streamChat);
}

const streamChat: WireStream = async function* (client, request, signal, opened) {
  const customTools = new Set(request.tools.filter((tool) => tool.kind === "custom").map((tool) => tool.name));
  const body: Record<string, unknown> = {
    model: request.model,
    messages: toMessages(request),
    stream: true,
    stream_options: { include_usage: true },
  };
  if (request.tools.length > 0) body.tools = request.tools.map(toFunction);
  if (request.reasoning?.effort) body.reasoning_effort = request.reasoning.effort;
  if (request.outputSchema !== undefined && request.outputSchema !== null) {
    body.response_format = {
      type: "json_schema",
      json_schema: { name: "codex_output_schema", strict: true, schema: request.outputSchema },
    };
  }
  const response = await client.chat.completions.create(body as never, { signal }).asResponse();
  opened();
  let messageId: string | null = null;
  let reasoningId: string | null = null;
  let text = "";
  let reasoning = "";
  let finished = false;
  let usage: ModelUsage | null = null;
  const calls: PendingCall[] = [];
  let base = "chat";
  for await (const payloads of ssePayloads(response.body)) {
    const events: ModelEvent[] = [];
    for (const chunk of payloads as ChatChunk[]) {
      if (chunk.id) base = chunk.id;
      if (chunk.usage) usage = toUsage(chunk.usage);
      for (const choice of chunk.choices ?? []) {
        const delta = choice.delta ?? {};
        const thought = delta.reasoning_content ?? delta.reasoning;
        if (thought) {
          if (!reasoningId) {
            reasoningId = `rs_${base}`;
            events.push({ type: "reasoningStarted", id: reasoningId });
          }
          reasoning += thought;
          events.push({ type: "reasoningTextDelta", id: reasoningId, index: 0, delta: thought });
        }
        if (delta.content) {
          if (!messageId) {
            messageId = `msg_${base}`;
            events.push({ type: "messageStarted", id: messageId });
          }
          text += delta.content;
          events.push({ type: "textDelta", id: messageId, delta: delta.content });
        }
        for (const part of delta.tool_calls ?? []) {
          const index = part.index ?? calls.length;
          calls[index] ??= { id: "", name: "", arguments: "" };
          const call = calls[index]!;
          if (part.id) call.id = part.id;
          if (part.function?.name) call.name += part.function.name;
          if (part.function?.arguments) call.arguments += part.function.arguments;
        }
        if (choice.finish_reason) finished = true;
      }
    }
    if (events.length > 0) yield events;
  }
  if (!finished) {
    throw new ModelError("stream closed before a finish_reason", "stream", {
      responseStreamDisconnected: { httpStatusCode: null },
    });
  }
  const events: ModelEvent[] = [];
  if (reasoningId) events.push({ type: "reasoningDone", item: { type: "reasoning", id: reasoningId, summary: [], content: [reasoning] } });
  if (messageId) events.push({ type: "messageDone", id: messageId, text });
  for (const [index, call] of calls.entries()) {
    if (!call) continue;
    events.push({ type: "toolCall", call: toToolCall(call, `call_${base}_${index}`, customTools) });
  }
  events.push({ type: "completed", usage });
  yield events;
};

function toToolCall(call: PendingCall, fallbackId: string, customTools: ReadonlySet<string>): ToolCall {
  const callId = call.id || fallbackId;
  if (!customTools.has(call.name)) return { type: "function_call", callId, name: call.name, arguments: call.arguments };
  let input = call.arguments;
  try {
    const parsed = JSON.parse(call.arguments) as { input?: unknown };
    if (typeof parsed.input === "string") input = parsed.input;
  } catch {
    // Not JSON: the model sent the freeform input itself.
  }
  return { type: "custom_tool_call", callId, name: call.name, input };
}

function toUsage(usage: NonNullable<ChatChunk["usage"]>): ModelUsage {
  return modelUsage({
    input: usage.prompt_tokens,
    cached: usage.prompt_tokens_details?.cached_tokens,
    output: usage.completion_tokens,
    reasoning: usage.completion_tokens_details?.reasoning_tokens,
    total: usage.total_tokens,
  });
}

function toFunction(tool: ToolSpec): unknown {
  const parameters =
    tool.kind === "function"
      ? tool.parameters
      : { type: "object", properties: { input: { type: "string", description: "The raw tool input." } }, required: ["input"] };
  return { type: "function", function: { name: tool.name, description: tool.description, parameters } };
}

type ChatMessage = Record<string, unknown> & { role: string };

/** The history as chat messages: consecutive assistant text and tool calls merge into one message. */
function toMessages(request: ModelRequest): ChatMessage[] {
  const messages: ChatMessage[] = [{ role: "system", content: request.instructions }];
  const assistant = (): ChatMessage => {
    const last = messages[messages.length - 1];
    if (last?.role === "assistant") return last;
    const fresh: ChatMessage = { role: "assistant", content: null };
    messages.push(fresh);
    return fresh;
  };
  for (const item of request.input) {
    switch (item.type) {
      case "message":
        if (item.role === "assistant") {
          const message = assistant();
          message.content = `${(message.content as string | null) ?? ""}${textOf(item)}`;
        } else {
          messages.push({ role: item.role === "developer" ? "system" : "user", content: toChatContent(item) });
        }
        break;
      case "function_call":
      case "custom_tool_call": {
        const message = assistant();
        const calls = (message.tool_calls as unknown[] | undefined) ?? [];
        const args = item.type === "function_call" ? item.arguments : JSON.stringify({ input: item.input });
        calls.push({ id: item.callId, type: "function", function: { name: item.name, arguments: args } });
        message.tool_calls = calls;
        break;
      }
      case "tool_output":
        if (typeof item.output === "string") {
          messages.push({ role: "tool", tool_call_id: item.callId, content: item.output });
        } else {
          // Tool messages carry text only on this wire: images follow as a user message.
          const text = item.output.map((part) => ("text" in part ? part.text : "[image attached below]")).join("\n");
          messages.push({ role: "tool", tool_call_id: item.callId, content: text });
          messages.push({ role: "user", content: toChatContent({ type: "message", role: "user", content: item.output }) });
        }
        break;
      case "reasoning":
        break;
    }
  }
  return messages;
}

function textOf(item: Extract<ConversationItem, { type: "message" }>): string {
  return item.content.map((part) => ("text" in part ? part.text : "")).join("");
}

function toChatContent(item: Extract<ConversationItem, { type: "message" }>): unknown {
  if (item.content.every((part) => part.type !== "input_image")) return textOf(item);
  return item.content.map((part) =>
    part.type === "input_image" ? { type: "image_url", image_url: { url: part.image_url } } : { type: "text", text: part.text },
  );
}
