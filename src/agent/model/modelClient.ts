import type { ConversationItem, NativeData, ToolCall } from "../conversation.js";

/** A tool as offered to the model: a JSON-schema function, or a freeform (custom) tool with a grammar. */
export type ToolSpec =
  | { readonly kind: "function"; readonly name: string; readonly description: string; readonly parameters: Record<string, unknown> }
  | {
      readonly kind: "custom";
      readonly name: string;
      readonly description: string;
      readonly format?: { readonly syntax: "lark" | "regex"; readonly definition: string };
    };

/** Everything one model call needs, independent of the wire. */
export interface ModelRequest {
  readonly model: string;
  readonly instructions: string;
  readonly input: readonly ConversationItem[];
  readonly tools: readonly ToolSpec[];
  readonly reasoning: { readonly effort: string | null; readonly summary: string | null } | null;
  /** JSON Schema the final answer must follow (this turn only). */
  readonly outputSchema: unknown;
  /** Stable per thread, so providers can reuse their prompt cache. */
  readonly promptCacheKey: string;
}

/** Token counts of one model response. */
export interface ModelUsage {
  readonly inputTokens: number;
  readonly cachedInputTokens: number;
  readonly outputTokens: number;
  readonly reasoningOutputTokens: number;
  readonly totalTokens: number;
}

/** Usage from a wire's counts; a missing total is input plus output. */
export function modelUsage(counts: {
  readonly input?: number;
  readonly cached?: number;
  readonly output?: number;
  readonly reasoning?: number;
  readonly total?: number;
}): ModelUsage {
  const inputTokens = counts.input ?? 0;
  const outputTokens = counts.output ?? 0;
  return {
    inputTokens,
    cachedInputTokens: counts.cached ?? 0,
    outputTokens,
    reasoningOutputTokens: counts.reasoning ?? 0,
    totalTokens: counts.total ?? inputTokens + outputTokens,
  };
}

/** What a model stream yields, the same for every wire. */
export type ModelEvent =
  | { readonly type: "messageStarted"; readonly id: string }
  | { readonly type: "textDelta"; readonly id: string; readonly delta: string }
  | { readonly type: "messageDone"; readonly id: string; readonly text: string; readonly native?: NativeData }
  | { readonly type: "reasoningStarted"; readonly id: string }
  | { readonly type: "summaryPartAdded"; readonly id: string; readonly index: number }
  | { readonly type: "summaryDelta"; readonly id: string; readonly index: number; readonly delta: string }
  | { readonly type: "reasoningTextDelta"; readonly id: string; readonly index: number; readonly delta: string }
  | { readonly type: "reasoningDone"; readonly item: Extract<ConversationItem, { type: "reasoning" }> }
  | { readonly type: "toolCall"; readonly call: ToolCall }
  | { readonly type: "completed"; readonly usage: ModelUsage | null };

/** A model provider's streaming endpoint. Errors are thrown as {@link ModelError}. */
export interface ModelClient {
  /** Loads what the client needs (the SDK) so that time is not counted against the stream. */
  prepare(): Promise<void>;
  /** The response's events in order, in batches: those that arrived together come together. */
  stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<readonly ModelEvent[]>;
}
