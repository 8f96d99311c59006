import type { GenerateContentResponse, GenerateContentResponseUsageMetadata, Part } from "../../vendor/genai.js";
import type { ConversationItem, NativeData, ToolCall } from "../conversation.js";
import { GEMINI_WIRE, type GeminiNative } from "./geminiContents.js";
import { modelUsage, type ModelEvent, type ModelUsage } from "./modelClient.js";
import { ModelError } from "./modelError.js";

/** The thoughts being streamed: one reasoning item. */
interface OpenReasoning {
  readonly id: string;
  text: string;
  signature?: string;
}

/**
 * One streamed `generateContent` response: thought parts become a reasoning item (its summary),
 * text parts the message, both streamed as they come; function calls (Gemini sends each whole)
 * become tool calls when the response ends. A thought signature stays with the item of the part
 * it came on, as its `native` data.
 */
export class GeminiAssembly {
  private base: string | null = null;
  private reasoning: OpenReasoning | null = null;
  private reasonings = 0;
  private messageId: string | null = null;
  private text = "";
  private textSignature: string | undefined;
  private readonly calls: ToolCall[] = [];
  private finished = false;
  private blocked: string | null = null;
  private usage: ModelUsage | null = null;

  /**
   * @param customTools freeform tools, offered as functions with one `input` string.
   * @param fallbackBase what ids are made of when the response has no `responseId`.
   */
  constructor(
    private readonly customTools: ReadonlySet<string>,
    private readonly fallbackBase: string,
  ) {}

  /** Appends the model events of one streamed chunk to `events`. */
  add(chunk: GenerateContentResponse, events: ModelEvent[]): void {
    this.base ??= chunk.responseId || this.fallbackBase;
    if (chunk.usageMetadata) this.usage = toUsage(chunk.usageMetadata);
    const block = chunk.promptFeedback?.blockReason;
    if (block) this.blocked = [block, chunk.promptFeedback?.blockReasonMessage].filter(Boolean).join(": ");
    const candidate = chunk.candidates?.[0];
    for (const part of candidate?.content?.parts ?? []) this.addPart(part, events);
    // Any reason ends the response, SAFETY and RECITATION too: what came is the answer.
    if (candidate?.finishReason) this.finished = true;
  }

  private addPart(part: Part, events: ModelEvent[]): void {
    const signature = part.thoughtSignature;
    if (part.thought) {
      const reasoning = this.openReasoning(events);
      if (part.text) {
        reasoning.text += part.text;
        events.push({ type: "summaryDelta", id: reasoning.id, index: 0, delta: part.text });
      }
      if (signature) reasoning.signature = signature;
      return;
    }
    if (part.functionCall) {
      this.closeReasoning(events);
      const { id, name = "", args = {} } = part.functionCall;
      const native = this.native({ responseId: this.base!, ...(signature ? { thoughtSignature: signature } : {}) });
      const callId = id || `call_${this.base}_${this.calls.length}`;
      const input = args.input;
      this.calls.push(
        this.customTools.has(name)
          ? { type: "custom_tool_call", callId, name, input: typeof input === "string" ? input : JSON.stringify(args), native }
          : { type: "function_call", callId, name, arguments: JSON.stringify(args), native },
      );
      return;
    }
    if (part.text) {
      this.closeReasoning(events);
      if (!this.messageId) {
        this.messageId = `msg_${this.base}`;
        events.push({ type: "messageStarted", id: this.messageId });
      }
      this.text += part.text;
      events.push({ type: "textDelta", id: this.messageId, delta: part.text });
    }
    // A signature on an empty part (how a stream ends) belongs to the message, or to the thoughts when there is none yet.
    if (signature && !this.messageId && this.reasoning) this.reasoning.signature = signature;
    else if (signature) this.textSignature = signature;
  }

  private openReasoning(events: ModelEvent[]): OpenReasoning {
    if (this.reasoning) return this.reasoning;
    const reasoning: OpenReasoning = { id: `rs_${this.base}_${this.reasonings++}`, text: "" };
    events.push({ type: "reasoningStarted", id: reasoning.id }, { type: "summaryPartAdded", id: reasoning.id, index: 0 });
    this.reasoning = reasoning;
    return reasoning;
  }

  /** Thoughts end where the answer or a call begins. */
  private closeReasoning(events: ModelEvent[]): void {
    const reasoning = this.reasoning;
    if (!reasoning) return;
    this.reasoning = null;
    const item: Extract<ConversationItem, { type: "reasoning" }> = { type: "reasoning", id: reasoning.id, summary: [reasoning.text], content: [] };
    events.push({ type: "reasoningDone", item: reasoning.signature ? { ...item, native: this.native({ thoughtSignature: reasoning.signature }) } : item });
  }

  private native(data: GeminiNative): NativeData {
    return { wire: GEMINI_WIRE, data };
  }

  /**
   * The events that close the response once the stream ended. A blocked prompt fails the turn; a
   * stream that ended without a finish reason is a broken stream.
   */
  finish(): ModelEvent[] {
    if (this.blocked && !this.finished) throw new ModelError(`Gemini blocked the prompt (${this.blocked}).`, "fatal", "other");
    if (!this.finished) {
      throw new ModelError("stream closed before a finishReason", "stream", { responseStreamDisconnected: { httpStatusCode: null } });
    }
    const events: ModelEvent[] = [];
    this.closeReasoning(events);
    if (this.messageId) {
      const native = this.textSignature ? this.native({ thoughtSignature: this.textSignature }) : undefined;
      events.push({ type: "messageDone", id: this.messageId, text: this.text, ...(native ? { native } : {}) });
    }
    for (const call of this.calls) events.push({ type: "toolCall", call });
    events.push({ type: "completed", usage: this.usage });
    return events;
  }
}

/** Gemini's counts: thoughts are output tokens, and the reasoning ones. */
function toUsage(usage: GenerateContentResponseUsageMetadata): ModelUsage {
  return modelUsage({
    input: usage.promptTokenCount,
    cached: usage.cachedContentTokenCount,
    output: (usage.candidatesTokenCount ?? 0) + (usage.thoughtsTokenCount ?? 0),
    reasoning: usage.thoughtsTokenCount,
    total: usage.totalTokenCount,
  });
}
