import type { ToolCall } from "../conversation.js";
import { shownArguments } from "./arguments.js";
import type { ToolContext } from "./tool.js";

/**
 * Answers a call of a tool that was not offered (a model's typo, a hallucinated tool, a name a
 * server garbled): a failed `dynamicToolCall` item shows the call to the client, and the model is
 * told, with Codex's `unsupported call: <name>`, which tools there are, so it can call one of them
 * and the turn goes on. Codex sends the model the same first words but shows the client no item.
 */
export async function unknownToolCall(call: ToolCall, offered: readonly string[], context: ToolContext): Promise<string> {
  const message = `unsupported call: ${call.name || "(no name)"}. No tool has this name; the tools are: ${offered.join(", ") || "(none)"}.`;
  const item = { type: "dynamicToolCall" as const, id: call.callId, namespace: null, tool: call.name, arguments: shownArguments(call) };
  await context.emit({ type: "itemStarted", item: { ...item, status: "inProgress", contentItems: null, success: null, durationMs: null } });
  await context.emit({
    type: "itemCompleted",
    item: { ...item, status: "failed", contentItems: [{ type: "inputText", text: message }], success: false, durationMs: 0 },
  });
  return message;
}
