import type { ToolCall } from "../conversation.js";
import { modelUsage, type ModelEvent, type ModelUsage } from "./modelClient.js";
import { ModelError } from "./modelError.js";

/** Fields of a Chat Completions stream chunk we read, including the reasoning fields OSS servers add. */
export interface ChatChunk {
  readonly id?: string;
  readonly choices?: ReadonlyArray<{
    readonly delta?: {
      readonly content?: string | null;
      readonly reasoning_content?: string | null;
      readonly reasoning?: string | null;
      readonly tool_calls?: readonly ChatToolCallDelta[];
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

/** One fragment of a streamed tool call. */
export interface ChatToolCallDelta {
  readonly index?: number;
  readonly id?: string;
  readonly function?: { readonly name?: string; readonly arguments?: string };
}

interface PendingCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * One Chat Completions response as it streams: text and reasoning deltas become model events at
 * once; tool calls, which arrive as fragments by index, become events when the stream finishes.
 */
export class ChatAssembly {
  private messageId: string | null = null;
  private reasoningId: string | null = null;
  private text = "";
  private reasoning = "";
  private finished = false;
  private usage: ModelUsage | null = null;
  /** Tool calls in the order they began. */
  private readonly calls: PendingCall[] = [];
  /** The call each stream `index` currently names. */
  private readonly byIndex = new Map<number, PendingCall>();
  private base = "chat";

  /** @param customTools freeform tools, offered as functions with one `input` string. */
  constructor(private readonly customTools: ReadonlySet<string>) {}

  /** Appends the model events of the chunks that arrived together to `events`. */
  add(chunks: readonly ChatChunk[], events: ModelEvent[]): void {
    for (const chunk of chunks) {
      if (chunk.id) this.base = chunk.id;
      if (chunk.usage) this.usage = toUsage(chunk.usage);
      for (const choice of chunk.choices ?? []) {
        const delta = choice.delta ?? {};
        const thought = delta.reasoning_content ?? delta.reasoning;
        if (thought) {
          if (!this.reasoningId) {
            this.reasoningId = `rs_${this.base}`;
            events.push({ type: "reasoningStarted", id: this.reasoningId });
          }
          this.reasoning += thought;
          events.push({ type: "reasoningTextDelta", id: this.reasoningId, index: 0, delta: thought });
        }
        if (delta.content) {
          if (!this.messageId) {
            this.messageId = `msg_${this.base}`;
            events.push({ type: "messageStarted", id: this.messageId });
          }
          this.text += delta.content;
          events.push({ type: "textDelta", id: this.messageId, delta: delta.content });
        }
        for (const part of delta.tool_calls ?? []) {
          // As the openai SDK accumulates: id and name are assigned (servers such as vLLM repeat
          // them in every chunk), only the arguments are fragments to append.
          const call = this.callFor(part);
          if (part.id) call.id = part.id;
          if (part.function?.name) call.name = part.function.name;
          if (part.function?.arguments) call.arguments += part.function.arguments;
        }
        if (choice.finish_reason) this.finished = true;
      }
    }
  }

  /**
   * The call a fragment belongs to, by its `index`. A fragment whose id differs from the id already
   * at its index starts a new call (Ollama gives every call of a response index 0); one without an
   * index is a new call if it has an id, else the latest call's continuation.
   */
  private callFor(part: ChatToolCallDelta): PendingCall {
    const known = part.index === undefined ? this.calls.at(-1) : this.byIndex.get(part.index);
    if (known && (!part.id || !known.id || part.id === known.id)) return known;
    const call: PendingCall = { id: "", name: "", arguments: "" };
    this.calls.push(call);
    this.byIndex.set(part.index ?? this.calls.length - 1, call);
    return call;
  }

  /** The events that close the response once the stream ended; a stream that never finished is a stream error. */
  finish(): ModelEvent[] {
    if (!this.finished) {
      throw new ModelError("stream closed before a finish_reason", "stream", {
        responseStreamDisconnected: { httpStatusCode: null },
      });
    }
    const events: ModelEvent[] = [];
    if (this.reasoningId) {
      events.push({ type: "reasoningDone", item: { type: "reasoning", id: this.reasoningId, summary: [], content: [this.reasoning] } });
    }
    if (this.messageId) events.push({ type: "messageDone", id: this.messageId, text: this.text });
    for (const [index, call] of this.calls.entries()) {
      events.push({ type: "toolCall", call: toToolCall(call, `call_${this.base}_${index}`, this.customTools) });
    }
    events.push({ type: "completed", usage: this.usage });
    return events;
  }
}

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
