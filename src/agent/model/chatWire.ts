import type { ConversationItem } from "../conversation.js";
import { ChatAssembly, type ChatChunk } from "./chatAssembly.js";
import type { ModelClient, ModelEvent, ModelRequest, ToolSpec } from "./modelClient.js";
import { sdkModelClient, type WireStream } from "./openaiClient.js";
import { ssePayloads } from "./ssePayloads.js";
import type { ProviderSettings } from "./providers.js";

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
  const assembly = new ChatAssembly(customTools);
  for await (const payloads of ssePayloads(response.body)) {
    const events: ModelEvent[] = [];
    assembly.add(payloads as ChatChunk[], events);
    if (events.length > 0) yield events;
  }
  yield assembly.finish();
};

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
