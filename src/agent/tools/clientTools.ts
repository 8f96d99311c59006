import type { DynamicFunctionTool, DynamicToolSpec } from "../../protocol/clientTools.js";
import type { ContentPart, ToolCall } from "../conversation.js";
import { shownArguments } from "./arguments.js";
import type { Tool, ToolContext } from "./tool.js";

/**
 * Tools a client declared at thread start, offered to the model as function tools (a namespace's
 * tools as `<namespace>__<tool>`). A call becomes a `dynamicToolCall` item and an `item/tool/call`
 * request; the client's text (and images) go back to the model. Tools marked `deferLoading` wait
 * for a tool search Codex has and this server does not, so they are not offered.
 */
export function clientTools(specs: readonly DynamicToolSpec[]): Tool[] {
  return specs.flatMap((spec) =>
    spec.type === "namespace"
      ? spec.tools.filter((tool) => !tool.deferLoading).map((tool) => clientTool(tool, spec.name))
      : spec.deferLoading
        ? []
        : [clientTool(spec, null)],
  );
}

function clientTool(tool: DynamicFunctionTool, namespace: string | null): Tool {
  const schema = typeof tool.inputSchema === "object" && tool.inputSchema !== null ? (tool.inputSchema as Record<string, unknown>) : { type: "object" };
  return {
    spec: { kind: "function", name: namespace ? `${namespace}__${tool.name}` : tool.name, description: tool.description, parameters: schema },
    run: (call, context) => callClientTool(call, context, namespace, tool.name),
  };
}

async function callClientTool(call: ToolCall, context: ToolContext, namespace: string | null, name: string): Promise<string | ContentPart[]> {
  const args = shownArguments(call);
  const item = { type: "dynamicToolCall" as const, id: call.callId, namespace, tool: name, arguments: args };
  await context.emit({ type: "itemStarted", item: { ...item, status: "inProgress", contentItems: null, success: null, durationMs: null } });
  const started = context.environment.clock.nowMs();
  const answer = await context.client.callTool({ callId: call.callId, namespace, tool: name, arguments: args });
  const durationMs = context.environment.clock.nowMs() - started;
  if (!answer) {
    await context.emit({ type: "itemCompleted", item: { ...item, status: "failed", contentItems: null, success: false, durationMs } });
    return `${name} failed: the client that declared this tool did not answer the call.`;
  }
  const status = answer.success ? "completed" : "failed";
  await context.emit({ type: "itemCompleted", item: { ...item, status, contentItems: answer.contentItems, success: answer.success, durationMs } });
  const parts: ContentPart[] = answer.contentItems.flatMap((content): ContentPart[] => {
    if (content.type === "inputText") return [{ type: "input_text", text: content.text }];
    if (content.type === "inputImage") return [{ type: "input_image", image_url: content.imageUrl }];
    return [];
  });
  if (parts.every((part) => part.type === "input_text")) return parts.map((part) => (part as { text: string }).text).join("\n");
  return parts;
}
