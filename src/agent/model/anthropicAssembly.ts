import { ANTHROPIC_WIRE } from "./anthropicMessages.js";
import { streamBroke } from "./httpFailure.js";
import { modelUsage, type ModelEvent } from "./modelClient.js";

/** The fields of the Messages stream's events we read. */
export interface MessagesStreamEvent {
  readonly type: string;
  readonly index?: number;
  readonly message?: { readonly id?: string; readonly usage?: MessagesUsage };
  readonly content_block?: { readonly type: string; readonly id?: string; readonly name?: string; readonly data?: string };
  readonly delta?: {
    readonly type?: string;
    readonly text?: string;
    readonly partial_json?: string;
    readonly thinking?: string;
    readonly signature?: string;
    readonly stop_reason?: string | null;
  };
  readonly usage?: MessagesUsage;
}

/** Anthropic's token counts: `input_tokens` leaves out what was read from or written to the cache. */
interface MessagesUsage {
  readonly input_tokens?: number | null;
  readonly cache_creation_input_tokens?: number | null;
  readonly cache_read_input_tokens?: number | null;
  readonly output_tokens?: number | null;
  readonly output_tokens_details?: { readonly thinking_tokens?: number } | null;
}

/** A content block being streamed. */
type OpenBlock =
  | { kind: "text"; id: string; text: string }
  | { kind: "thinking"; id: string; thinking: string; signature: string }
  | { kind: "redacted"; id: string; data: string }
  | { kind: "tool"; callId: string; name: string; json: string };

/**
 * Turns a Messages API stream into model events: text blocks into messages with deltas, thinking
 * into reasoning items (their text as the summary) that keep the block for the history, tool_use
 * blocks into tool calls once their streamed JSON is whole (a freeform tool's `input` into a
 * custom call). Usage comes in `message_start` and grows in `message_delta`.
 */
export class AnthropicAssembly {
  private readonly blocks = new Map<number, OpenBlock>();
  private responseId = "msg";
  private usage: MessagesUsage = {};
  private stopped = false;

  constructor(private readonly customTools: ReadonlySet<string>) {}

  /** Appends the model events of `chunk` to `events`; throws when the stream reports an error. */
  add(chunk: readonly MessagesStreamEvent[], events: ModelEvent[]): void {
    for (const event of chunk) this.translate(event, events);
  }

  /** The last event, once the stream has ended: a stream cut before `message_stop` is a stream error. */
  finish(): ModelEvent[] {
    if (!this.stopped) throw streamBroke("stream closed before message_stop");
    const usage = this.usage;
    const cacheRead = usage.cache_read_input_tokens ?? 0;
    const input = (usage.input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0) + cacheRead;
    return [
      {
        type: "completed",
        usage: modelUsage({ input, cached: cacheRead, output: usage.output_tokens ?? 0, reasoning: usage.output_tokens_details?.thinking_tokens ?? 0 }),
      },
    ];
  }

  private translate(event: MessagesStreamEvent, events: ModelEvent[]): void {
    switch (event.type) {
      case "message_start":
        this.responseId = event.message?.id ?? this.responseId;
        this.usage = { ...event.message?.usage };
        return;
      case "content_block_start":
        return this.open(event.index ?? 0, event.content_block, events);
      case "content_block_delta":
        return this.delta(event.index ?? 0, event.delta ?? {}, events);
      case "content_block_stop":
        return this.close(event.index ?? 0, events);
      case "message_delta":
        // Counts given here are the totals so far; those left out keep their value from message_start.
        for (const [key, value] of Object.entries(event.usage ?? {})) if (value !== null && value !== undefined) this.usage = { ...this.usage, [key]: value };
        return;
      case "message_stop":
        this.stopped = true;
        return;
      default:
        // ping, and event types newer than this code.
        return;
    }
  }

  private open(index: number, block: MessagesStreamEvent["content_block"], events: ModelEvent[]): void {
    const id = `${this.responseId}_${index}`;
    switch (block?.type) {
      case "text":
        this.blocks.set(index, { kind: "text", id, text: "" });
        events.push({ type: "messageStarted", id });
        return;
      case "thinking":
        this.blocks.set(index, { kind: "thinking", id, thinking: "", signature: "" });
        events.push({ type: "reasoningStarted", id }, { type: "summaryPartAdded", id, index: 0 });
        return;
      case "redacted_thinking":
        this.blocks.set(index, { kind: "redacted", id, data: block.data ?? "" });
        events.push({ type: "reasoningStarted", id });
        return;
      case "tool_use":
        this.blocks.set(index, { kind: "tool", callId: block.id ?? id, name: block.name ?? "", json: "" });
        return;
      default:
        return;
    }
  }

  private delta(index: number, delta: NonNullable<MessagesStreamEvent["delta"]>, events: ModelEvent[]): void {
    const block = this.blocks.get(index);
    if (block?.kind === "text" && delta.text) {
      block.text += delta.text;
      events.push({ type: "textDelta", id: block.id, delta: delta.text });
    } else if (block?.kind === "thinking" && delta.thinking) {
      block.thinking += delta.thinking;
      events.push({ type: "summaryDelta", id: block.id, index: 0, delta: delta.thinking });
    } else if (block?.kind === "thinking" && delta.signature) {
      block.signature += delta.signature;
    } else if (block?.kind === "tool" && delta.partial_json) {
      block.json += delta.partial_json;
    }
  }

  private close(index: number, events: ModelEvent[]): void {
    const block = this.blocks.get(index);
    this.blocks.delete(index);
    switch (block?.kind) {
      case "text":
        events.push({ type: "messageDone", id: block.id, text: block.text });
        return;
      case "thinking": {
        const data = { type: "thinking", thinking: block.thinking, signature: block.signature };
        const summary = block.thinking ? [block.thinking] : [];
        events.push({ type: "reasoningDone", item: { type: "reasoning", id: block.id, summary, native: { wire: ANTHROPIC_WIRE, data } } });
        return;
      }
      case "redacted": {
        const data = { type: "redacted_thinking", data: block.data };
        events.push({ type: "reasoningDone", item: { type: "reasoning", id: block.id, summary: [], native: { wire: ANTHROPIC_WIRE, data } } });
        return;
      }
      case "tool":
        events.push({ type: "toolCall", call: this.toolCall(block) });
        return;
      default:
        return;
    }
  }

  private toolCall(block: Extract<OpenBlock, { kind: "tool" }>): Extract<ModelEvent, { type: "toolCall" }>["call"] {
    const json = block.json || "{}";
    if (!this.customTools.has(block.name)) return { type: "function_call", callId: block.callId, name: block.name, arguments: json };
    let input = "";
    try {
      const parsed = JSON.parse(json) as { input?: unknown };
      input = typeof parsed.input === "string" ? parsed.input : "";
    } catch {
      // Malformed arguments reach the tool as an empty input, which it refuses with a reason the model sees.
    }
    return { type: "custom_tool_call", callId: block.callId, name: block.name, input };
  }
}
