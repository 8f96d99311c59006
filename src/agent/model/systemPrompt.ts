import type { ContentPart, ConversationItem } from "../conversation.js";
import type { ModelRequest } from "./modelClient.js";

/** A request's system prompt and the conversation after it, for wires that take the system prompt apart. */
export interface SplitPrompt {
  /** The base instructions, then every developer message before the conversation, blank-line separated. */
  readonly system: string;
  /** The history from its first item that is not a leading developer message. */
  readonly conversation: readonly ConversationItem[];
}

/**
 * The system prompt of the wires that have one (chat, Anthropic, Gemini): the base instructions
 * and the developer messages before the conversation (developer instructions, skills). Developer
 * messages later in the history stay where they happened, so the system prompt (which prompt
 * caches key on) never changes mid-thread.
 */
export function splitSystemPrompt(request: ModelRequest): SplitPrompt {
  const system: string[] = [request.instructions];
  let start = 0;
  for (; start < request.input.length; start++) {
    const item = request.input[start]!;
    if (item.type !== "message" || item.role !== "developer") break;
    system.push(textOf(item.content));
  }
  return { system: system.filter((text) => text.length > 0).join("\n\n"), conversation: request.input.slice(start) };
}

/** The text of a message's parts, images left out. */
export function textOf(content: readonly ContentPart[]): string {
  return content.map((part) => ("text" in part ? part.text : "")).join("");
}
