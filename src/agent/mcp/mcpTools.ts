import * as z from "zod";
import { lazySchema } from "../../protocol/lazySchema.js";
import type { ContentPart, ToolCall } from "../conversation.js";
import { parseArguments } from "../tools/arguments.js";
import type { Tool, ToolContext } from "../tools/tool.js";
import type { McpCallResult, McpConnection, McpToolDefinition } from "./mcpConnection.js";
import { qualifiedToolName } from "./toolNames.js";

const McpArguments = lazySchema(() => z.record(z.string(), z.unknown()));

/**
 * The tools of a connected MCP server as function tools named `mcp__<server>__<tool>`. A call is an
 * `mcpToolCall` item; what the tool returned (text, images) goes back to the model.
 */
export function mcpTools(server: string, connection: McpConnection, toolTimeoutMs: number): Tool[] {
  return connection.tools.map((definition) => ({
    spec: {
      kind: "function",
      name: qualifiedToolName(server, definition.name),
      description: definition.description ?? definition.title ?? "",
      parameters: parameters(definition),
    },
    run: (call, context) => callMcpTool(call, context, { server, tool: definition.name, connection, toolTimeoutMs }),
  }));
}

/** The tool's input schema; the Responses API wants `properties` on an object schema, which MCP leaves optional. */
function parameters(definition: McpToolDefinition): Record<string, unknown> {
  const schema: Record<string, unknown> = { ...definition.inputSchema };
  if (schema.type === "object" && schema.properties === undefined) schema.properties = {};
  return schema;
}

async function callMcpTool(
  call: ToolCall,
  context: ToolContext,
  target: { server: string; tool: string; connection: McpConnection; toolTimeoutMs: number },
): Promise<string | ContentPart[]> {
  const parsed = parseArguments(call, McpArguments);
  if (!parsed.ok) return parsed.message;
  const item = { type: "mcpToolCall" as const, id: call.callId, server: target.server, tool: target.tool, arguments: parsed.value };
  await context.emit({ type: "itemStarted", item: { ...item, status: "inProgress", result: null, error: null, durationMs: null } });
  const { clock } = context.environment;
  const started = clock.nowMs();
  const outcome = await target.connection.callTool(target.tool, parsed.value, { signal: context.signal, timeoutMs: target.toolTimeoutMs });
  const durationMs = clock.nowMs() - started;
  if (!outcome.ok) {
    const message = `MCP tool ${target.server}/${target.tool} failed: ${outcome.message}`;
    await context.emit({ type: "itemCompleted", item: { ...item, status: "failed", result: null, error: { message }, durationMs } });
    return message;
  }
  const { content, structuredContent, isError } = outcome.result;
  const result = structuredContent === undefined ? { content: [...content] } : { content: [...content], structuredContent };
  // A tool that reports an error still answered: the item keeps its result, as in Codex.
  await context.emit({ type: "itemCompleted", item: { ...item, status: isError ? "failed" : "completed", result, error: null, durationMs } });
  return modelOutput(outcome.result);
}

/** Text blocks as one string; images as input images; anything else as its JSON. */
function modelOutput(result: McpCallResult): string | ContentPart[] {
  if (result.content.length === 0 && result.structuredContent !== undefined) return JSON.stringify(result.structuredContent);
  const parts = result.content.map(contentPart);
  if (parts.every((part) => part.type === "input_text")) return parts.map((part) => part.text).join("\n");
  return parts;
}

function contentPart(block: unknown): ContentPart {
  const content = block as { type?: unknown; text?: unknown; data?: unknown; mimeType?: unknown; resource?: { text?: unknown } };
  if (content.type === "text" && typeof content.text === "string") return { type: "input_text", text: content.text };
  if (content.type === "image" && typeof content.data === "string" && typeof content.mimeType === "string") {
    return { type: "input_image", image_url: `data:${content.mimeType};base64,${content.data}` };
  }
  if (content.type === "resource" && typeof content.resource?.text === "string") return { type: "input_text", text: content.resource.text };
  return { type: "input_text", text: JSON.stringify(block) };
}
