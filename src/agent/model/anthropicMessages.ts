import type { ContentPart, ConversationItem } from "../conversation.js";
import type { ModelRequest, ToolSpec } from "./modelClient.js";
import { splitSystemPrompt, textOf } from "./systemPrompt.js";

/** The name our history's native data goes by on this wire. */
export const ANTHROPIC_WIRE = "anthropic";

/** One content block of a Messages API message, as this server sends it. */
type Block = Record<string, unknown> & { type: string };

/** One Messages API message. */
interface Message {
  role: "user" | "assistant";
  content: Block[];
}

/** Claude's prompt cache: a block marked so ends a cached prefix (at most four per request). */
const CACHE = { type: "ephemeral" } as const;

/** What the user side says after tool results when the model spoke no text between (a message cannot be empty). */
const NOTHING = "(no output)";

/**
 * The request body of a streamed Messages API call: the instructions and the developer messages
 * before the conversation as the system prompt, the history as alternating user and assistant
 * messages (a tool's result in the user message right after the call), freeform tools as
 * functions with one `input` string. Claude's thinking blocks go back as they came, signature and
 * all. Cache breakpoints end the tools, the system prompt and the last two user messages, so a
 * long session reads its prefix from the cache on every call.
 */
export function messagesBody(request: ModelRequest, maxTokens: number, thinkingBudget: number | null): Record<string, unknown> {
  const { system, conversation } = splitSystemPrompt(request);
  const messages = toMessages(conversation);
  markCacheBreakpoints(messages);
  const body: Record<string, unknown> = {
    model: request.model,
    max_tokens: maxTokens,
    system: [{ type: "text", text: system, cache_control: CACHE }],
    messages,
    stream: true,
  };
  if (request.tools.length > 0) {
    const tools = request.tools.map(toTool);
    tools[tools.length - 1]!.cache_control = CACHE;
    body.tools = tools;
  }
  if (thinkingBudget !== null) body.thinking = { type: "enabled", budget_tokens: thinkingBudget };
  if (request.outputSchema !== undefined && request.outputSchema !== null) {
    body.output_config = { format: { type: "json_schema", schema: request.outputSchema } };
  }
  return body;
}

function toMessages(items: readonly ConversationItem[]): Message[] {
  const messages: Message[] = [];
  const add = (role: Message["role"], blocks: Block[]): void => {
    if (blocks.length === 0) return;
    const last = messages.at(-1);
    if (last?.role === role) last.content.push(...blocks);
    else messages.push({ role, content: blocks });
  };
  // The history keeps each call with its result (call, result, call, result); Claude wants the
  // calls of one response together and all their results in the user message after them.
  let results: Block[] = [];
  const flushResults = (): void => {
    add("user", results);
    results = [];
  };
  for (const item of items) {
    if (item.type !== "tool_output" && item.type !== "function_call" && item.type !== "custom_tool_call") flushResults();
    switch (item.type) {
      case "message":
        if (item.role === "assistant") add("assistant", [{ type: "text", text: textOf(item.content) || NOTHING }]);
        else add("user", item.content.map(toUserBlock));
        break;
      case "reasoning":
        // Only Claude's own thinking goes back, exactly as it came; another provider's cannot be checked here.
        if (item.native?.wire === ANTHROPIC_WIRE) add("assistant", [item.native.data as Block]);
        break;
      case "function_call":
        add("assistant", [{ type: "tool_use", id: item.callId, name: item.name, input: parseArguments(item.arguments) }]);
        break;
      case "custom_tool_call":
        add("assistant", [{ type: "tool_use", id: item.callId, name: item.name, input: { input: item.input } }]);
        break;
      case "tool_output":
        results.push(toolResult(item.callId, item.output));
        break;
    }
  }
  flushResults();
  // The first message must be the user's, and the last may not be the assistant's unless it is a prefill.
  if (messages[0]?.role !== "user") messages.unshift({ role: "user", content: [{ type: "text", text: NOTHING }] });
  return messages;
}

/** A tool's result: text, or text and images (`view_image`) as blocks. */
function toolResult(callId: string, output: string | readonly ContentPart[]): Block {
  const content = typeof output === "string" ? output || NOTHING : output.map(toUserBlock);
  return { type: "tool_result", tool_use_id: callId, content };
}

function toUserBlock(part: ContentPart): Block {
  if (part.type !== "input_image") return { type: "text", text: part.text || NOTHING };
  const data = /^data:([^;,]+);base64,(.*)$/s.exec(part.image_url);
  return data ? { type: "image", source: { type: "base64", media_type: data[1], data: data[2] } } : { type: "image", source: { type: "url", url: part.image_url } };
}

/** Breakpoints at the end of the last two user messages: this call writes the newest, the next reads it. */
function markCacheBreakpoints(messages: Message[]): void {
  let marked = 0;
  for (let index = messages.length - 1; index >= 0 && marked < 2; index--) {
    const message = messages[index]!;
    if (message.role !== "user") continue;
    const last = message.content.at(-1)!;
    message.content[message.content.length - 1] = { ...last, cache_control: CACHE };
    marked++;
  }
}

function toTool(tool: ToolSpec): Block {
  const input_schema =
    tool.kind === "function" ? tool.parameters : { type: "object", properties: { input: { type: "string", description: "The raw tool input." } }, required: ["input"] };
  return { type: "custom", name: tool.name, description: tool.description, input_schema };
}

/** A function call's JSON arguments as the object `tool_use` carries; anything else as `{}` (the model sent it so). */
function parseArguments(text: string): unknown {
  try {
    const value: unknown = JSON.parse(text || "{}");
    return typeof value === "object" && value !== null && !Array.isArray(value) ? value : {};
  } catch {
    return {};
  }
}
