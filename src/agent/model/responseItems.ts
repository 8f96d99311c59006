/**
 * Raw Responses API input items (as `thread/inject_items` carries them) read into the
 * conversation's own shape: the inverse of what the Responses wire sends. Messages, tool calls
 * and tool outputs are understood; anything else is refused by name, not silently dropped.
 */
import * as z from "zod";
import { lazySchema } from "../../protocol/lazySchema.js";
import { ConversationItem, ContentPart } from "../conversation.js";

const RawItem = lazySchema(() => z.union([
  z.object({ type: z.literal("message").optional(), role: z.enum(["user", "assistant", "developer", "system"]), content: z.union([z.string(), z.array(ContentPart)]) }),
  z.object({ type: z.literal("function_call"), call_id: z.string(), name: z.string(), arguments: z.string() }),
  z.object({ type: z.literal("custom_tool_call"), call_id: z.string(), name: z.string(), input: z.string() }),
  z.object({ type: z.enum(["function_call_output", "custom_tool_call_output"]), call_id: z.string(), output: z.union([z.string(), z.array(ContentPart)]) }),
]));

/** The items, or why one of them cannot be read (naming its index). */
export function fromResponseItems(raw: readonly unknown[]): { items: ConversationItem[] } | { problem: string } {
  const items: ConversationItem[] = [];
  for (const [index, entry] of raw.entries()) {
    const parsed = RawItem.safeParse(entry);
    if (!parsed.success) {
      const type = (entry as { type?: unknown } | null)?.type;
      return { problem: `items[${index}]${typeof type === "string" ? ` (${type})` : ""} is not a message, tool call or tool output this server can inject` };
    }
    const item = parsed.data;
    if ("role" in item) {
      const content = typeof item.content === "string" ? [{ type: item.role === "assistant" ? ("output_text" as const) : ("input_text" as const), text: item.content }] : item.content;
      items.push({ type: "message", role: item.role === "system" ? "developer" : item.role, content });
    } else if (item.type === "function_call") items.push({ type: "function_call", callId: item.call_id, name: item.name, arguments: item.arguments });
    else if (item.type === "custom_tool_call") items.push({ type: "custom_tool_call", callId: item.call_id, name: item.name, input: item.input });
    else items.push({ type: "tool_output", callId: item.call_id, custom: item.type === "custom_tool_call_output", output: item.output });
  }
  return { items };
}
