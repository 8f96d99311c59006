import type { ConversationItem } from "../conversation.js";
import { modelUsage, type ModelClient, type ModelEvent, type ModelUsage, type ToolSpec } from "./modelClient.js";
import { ModelError } from "./modelError.js";
import { sdkModelClient, type WireStream } from "./openaiClient.js";
import { ssePayloads } from "./ssePayloads.js";
import type { ProviderSettings } from "./providers.js";

/** Fields of the Responses stream events we read; the SDK's types are narrower than what servers send. */
interface StreamEvent {
  readonly type: string;
  readonly item_id?: string;
  readonly summary_index?: number;
  readonly content_index?: number;
  readonly delta?: string;
  readonly item?: OutputItem;
  readonly response?: { readonly usage?: ResponsesUsage | null; readonly error?: { code?: string; message?: string } | null };
  readonly message?: string;
  readonly code?: string;
}

interface OutputItem {
  readonly type: string;
  readonly id?: string;
  readonly call_id?: string;
  readonly name?: string;
  readonly arguments?: string;
  readonly input?: string;
  readonly content?: ReadonlyArray<{ readonly type: string; readonly text?: string; readonly refusal?: string }>;
  readonly summary?: ReadonlyArray<{ readonly text: string }>;
  readonly encrypted_content?: string | null;
}

interface ResponsesUsage {
  readonly input_tokens?: number;
  readonly input_tokens_details?: { readonly cached_tokens?: number } | null;
  readonly output_tokens?: number;
  readonly output_tokens_details?: { readonly reasoning_tokens?: number } | null;
  readonly total_tokens?: number;
}

/** The Responses API (`POST /responses`, streaming), as Codex calls it. */
export function responsesClient(provider: ProviderSettings): ModelClient {
  return sdkModelClient(provider, streamResponses);
}

const streamResponses: WireStream = async function* (client, request, signal, opened) {
  const body: Record<string, unknown> = {
    model: request.model,
    instructions: request.instructions,
    input: request.input.flatMap(toInputItem),
    tools: request.tools.map(toTool),
    tool_choice: "auto",
    parallel_tool_calls: false,
    store: false,
    stream: true,
    prompt_cache_key: request.promptCacheKey,
  };
  if (request.reasoning) {
    body.reasoning = { effort: request.reasoning.effort ?? undefined, summary: request.reasoning.summary ?? undefined };
    body.include = ["reasoning.encrypted_content"];
  }
  if (request.outputSchema !== undefined && request.outputSchema !== null) {
    body.text = { format: { type: "json_schema", strict: true, name: "codex_output_schema", schema: request.outputSchema } };
  }
  const response = await client.responses.create(body as never, { signal }).asResponse();
  opened();
  const parts = new Map<string, number>();
  for await (const payloads of ssePayloads(response.body)) {
    const events: ModelEvent[] = [];
    const outcome = translateChunk(payloads as StreamEvent[], parts, events);
    if (events.length > 0) yield events;
    if (outcome === "completed") return;
    if (outcome !== "more") throw outcome;
  }
  throw new ModelError("stream closed before response.completed", "stream", {
    responseStreamDisconnected: { httpStatusCode: null },
  });
};

/** Whether more events are to come, or how the response ended. */
type Outcome = "more" | "completed" | ModelError;

/** Appends the model events of one chunk's stream events to `events`, up to the event that ends the response. */
function translateChunk(chunk: readonly StreamEvent[], parts: Map<string, number>, events: ModelEvent[]): Outcome {
  for (const event of chunk) {
    const outcome = translate(event, parts, events);
    if (outcome !== "more") return outcome;
  }
  return "more";
}

/** Appends the model events of one stream event to `events`. */
function translate(event: StreamEvent, parts: Map<string, number>, events: ModelEvent[]): Outcome {
  switch (event.type) {
    case "response.output_item.added":
      if (event.item?.type === "message" && event.item.id) events.push({ type: "messageStarted", id: event.item.id });
      if (event.item?.type === "reasoning" && event.item.id) events.push({ type: "reasoningStarted", id: event.item.id });
      return "more";
    case "response.output_text.delta":
      if (event.item_id && event.delta) events.push({ type: "textDelta", id: event.item_id, delta: event.delta });
      return "more";
    case "response.reasoning_summary_part.added": {
      // As Codex: a part is announced when the stream announces it, never inferred from its text.
      const id = event.item_id ?? "";
      const index = event.summary_index ?? 0;
      if ((parts.get(id) ?? -1) < index) {
        parts.set(id, index);
        events.push({ type: "summaryPartAdded", id, index });
      }
      return "more";
    }
    case "response.reasoning_summary_text.delta":
      if (event.delta) events.push({ type: "summaryDelta", id: event.item_id ?? "", index: event.summary_index ?? 0, delta: event.delta });
      return "more";
    case "response.reasoning_text.delta":
      if (event.item_id && event.delta) {
        events.push({ type: "reasoningTextDelta", id: event.item_id, index: event.content_index ?? 0, delta: event.delta });
      }
      return "more";
    case "response.output_item.done": {
      const done = event.item && fromOutputItem(event.item);
      if (done) events.push(done);
      return "more";
    }
    case "response.completed":
    case "response.incomplete":
      events.push({ type: "completed", usage: toUsage(event.response?.usage) });
      return "completed";
    case "response.failed": {
      const error = event.response?.error;
      if (error?.code === "context_length_exceeded") {
        return new ModelError(error.message ?? "context window exceeded", "fatal", "contextWindowExceeded");
      }
      return new ModelError(error?.message ?? "the model response failed", "stream", {
        responseStreamDisconnected: { httpStatusCode: null },
      });
    }
    case "error":
      return new ModelError(event.message ?? "the model stream reported an error", "stream", {
        responseStreamDisconnected: { httpStatusCode: null },
      });
    default:
      return "more";
  }
}

/** The model event of a finished output item; null for items we do not act on. */
function fromOutputItem(item: OutputItem): ModelEvent | null {
  switch (item.type) {
    case "message": {
      const text = (item.content ?? []).map((part) => part.text ?? part.refusal ?? "").join("");
      return { type: "messageDone", id: item.id ?? "", text };
    }
    case "reasoning":
      return {
        type: "reasoningDone",
        item: {
          type: "reasoning",
          id: item.id ?? "",
          summary: (item.summary ?? []).map((part) => part.text),
          content: (item.content ?? []).map((part) => part.text ?? ""),
          encryptedContent: item.encrypted_content ?? null,
        },
      };
    case "function_call":
      return {
        type: "toolCall",
        call: { type: "function_call", callId: item.call_id ?? item.id ?? "", name: item.name ?? "", arguments: item.arguments ?? "" },
      };
    case "custom_tool_call":
      return {
        type: "toolCall",
        call: { type: "custom_tool_call", callId: item.call_id ?? item.id ?? "", name: item.name ?? "", input: item.input ?? "" },
      };
    default:
      return null;
  }
}

function toUsage(usage: ResponsesUsage | null | undefined): ModelUsage | null {
  if (!usage) return null;
  return modelUsage({
    input: usage.input_tokens,
    cached: usage.input_tokens_details?.cached_tokens,
    output: usage.output_tokens,
    reasoning: usage.output_tokens_details?.reasoning_tokens,
    total: usage.total_tokens,
  });
}

/** A history entry as Responses input (reasoning without encrypted content cannot be replayed statelessly). */
function toInputItem(item: ConversationItem): unknown[] {
  switch (item.type) {
    case "message":
      return [{ type: "message", role: item.role, content: item.content }];
    case "reasoning":
      if (!item.encryptedContent) return [];
      return [
        {
          type: "reasoning",
          id: item.id,
          summary: item.summary.map((text) => ({ type: "summary_text", text })),
          encrypted_content: item.encryptedContent,
        },
      ];
    case "function_call":
      return [{ type: "function_call", call_id: item.callId, name: item.name, arguments: item.arguments }];
    case "custom_tool_call":
      return [{ type: "custom_tool_call", call_id: item.callId, name: item.name, input: item.input }];
    case "tool_output":
      return [{ type: item.custom ? "custom_tool_call_output" : "function_call_output", call_id: item.callId, output: item.output }];
  }
}

function toTool(tool: ToolSpec): unknown {
  if (tool.kind === "function") {
    return { type: "function", name: tool.name, description: tool.description, strict: false, parameters: tool.parameters };
  }
  return {
    type: "custom",
    name: tool.name,
    description: tool.description,
    ...(tool.format ? { format: { type: "grammar", syntax: tool.format.syntax, definition: tool.format.definition } } : {}),
  };
}
