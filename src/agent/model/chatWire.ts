import { ChatAssembly, type ChatChunk } from "./chatAssembly.js";
import { chatMessages } from "./chatMessages.js";
import type { ModelClient, ModelEvent, ToolSpec } from "./modelClient.js";
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
    messages: chatMessages(request),
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
