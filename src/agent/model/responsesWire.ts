import type { ConversationItem } from "../conversation.js";
import { modelUsage, type ModelClient, type ModelEvent, type ModelUsage, type ToolSpec } from "./modelClient.js";
import { ModelError } from "./modelError.js";
import { sdkModelClient, type WireStream } from "./openaiClient.js";
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
  const stream = (await client.responses.create(body as never, { signal })) as unknown as AsyncIterable<StreamEvent>;
  opened();
  const parts = new Map<string, number>();
  for await (const event of stream) {
    const completed = yield* translate(event, parts);
    if (completed) return;
  }
  throw new ModelError("stream closed before response.completed", "stream", {
    responseStreamDisconnected: { httpStatusCode: null },
  });
};

/** Yields the model events of one stream event; returns true once the response is complete. */
function* translate(event: StreamEvent, parts: Map<string, number>): Generator<ModelEvent, boolean> {
  switch (event.type) {
    case "response.output_item.added":
      if (event.item?.type === "message" && event.item.id) yield { type: "messageStarted", id: event.item.id };
      if (event.item?.type === "reasoning" && event.item.id) yield { type: "reasoningStarted", id: event.item.id };
      return false;
    case "response.output_text.delta":
      if (event.item_id && event.delta) yield { type: "textDelta", id: event.item_id, delta: event.delta };
      return false;
    case "response.reasoning_summary_part.added":
    case "response.reasoning_summary_text.delta": {
      const id = event.item_id ?? "";
      const index = event.summary_index ?? 0;
      if ((parts.get(id) ?? -1) < index) {
        parts.set(id, index);
        yield { type: "summaryPartAdded", id, index };
      }
      if (event.type === "response.reasoning_summary_text.delta" && event.delta) {
        yield { type: "summaryDelta", id, index, delta: event.delta };
      }
      return false;
    }
    case "response.reasoning_text.delta":
      if (event.item_id && event.delta) {
        yield { type: "reasoningTextDelta", id: event.item_id, index: event.content_index ?? 0, delta: event.delta };
      }
      return false;
    case "response.output_item.done":
      if (event.item) yield* fromOutputItem(event.item);
      return false;
    case "response.completed":
    case "response.incomplete":
      yield { type: "completed", usage: toUsage(event.response?.usage) };
      return true;
    case "response.failed": {
      const error = event.response?.error;
      if (error?.code === "context_length_exceeded") {
        throw new ModelError(error.message ?? "context window exceeded", "fatal", "contextWindowExceeded");
      }
      throw new ModelError(error?.message ?? "the model response failed", "stream", {
        responseStreamDisconnected: { httpStatusCode: null },
      });
    }
    case "error":
      throw new ModelError(event.message ?? "the model stream reported an error", "stream", {
        responseStreamDisconnected: { httpStatusCode: null },
      });
    default:
      return false;
  }
}

function* fromOutputItem(item: OutputItem): Generator<ModelEvent> {
  switch (item.type) {
    case "message": {
      const text = (item.content ?? []).map((part) => part.text ?? part.refusal ?? "").join("");
      yield { type: "messageDone", id: item.id ?? "", text };
      return;
    }
    case "reasoning":
      yield {
        type: "reasoningDone",
        item: {
          type: "reasoning",
          id: item.id ?? "",
          summary: (item.summary ?? []).map((part) => part.text),
          content: (item.content ?? []).map((part) => part.text ?? ""),
          encryptedContent: item.encrypted_content ?? null,
        },
      };
      return;
    case "function_call":
      yield {
        type: "toolCall",
        call: { type: "function_call", callId: item.call_id ?? item.id ?? "", name: item.name ?? "", arguments: item.arguments ?? "" },
      };
      return;
    case "custom_tool_call":
      yield {
        type: "toolCall",
        call: { type: "custom_tool_call", callId: item.call_id ?? item.id ?? "", name: item.name ?? "", input: item.input ?? "" },
      };
      return;
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
