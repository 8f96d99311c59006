import type { ContentPart } from "../conversation.js";
import type { ModelRequest } from "./modelClient.js";
import { splitSystemPrompt, textOf } from "./systemPrompt.js";

/** One part of a user message on the chat wire. */
type ChatPart = { readonly type: "text"; readonly text: string } | { readonly type: "image_url"; readonly image_url: { readonly url: string } };

/** A tool call as an assistant message carries it. */
interface ChatToolCall {
  readonly id: string;
  readonly type: "function";
  readonly function: { readonly name: string; readonly arguments: string };
}

/** One Chat Completions message, as this server sends it. */
export type ChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string | ChatPart[] }
  | { role: "assistant"; content: string | null; tool_calls?: ChatToolCall[] }
  | { role: "tool"; tool_call_id: string; content: string };

/**
 * Said in the assistant's place between tool results and a user message that follows them
 * (input steered in mid-turn, the image `view_image` returned): strict templates (mistral_common,
 * Gemma, Mistral's Jinja ones) accept only an assistant or another tool message after a tool one,
 * and an empty assistant message is refused by some of them.
 */
export const TOOL_RESULTS_SEEN = "(tool results received)";

/**
 * The history as Chat Completions messages that strict chat templates (vLLM, llama.cpp, Ollama,
 * NIM) accept: ONE system message first (the base instructions, then every developer message
 * before the conversation: developer instructions, skills), then user and assistant messages that
 * alternate; an assistant message may carry tool calls, its `tool` results follow it at once.
 * Consecutive user inputs (AGENTS.md, the environment context and the prompt, which Codex sends as
 * three user messages) merge into one message, consecutive assistant text and tool calls into one.
 * A developer message inside the conversation joins the user's side as text rather than the system
 * message: it stays where it happened, and the system prompt (which local servers' prefix caches
 * key on) never changes mid-thread. User input right after tool results follows a short assistant
 * message ({@link TOOL_RESULTS_SEEN}). Reasoning is not sent back.
 */
export function chatMessages(request: ModelRequest): ChatMessage[] {
  const { system, conversation } = splitSystemPrompt(request);
  const messages: ChatMessage[] = [];
  for (const item of conversation) {
    switch (item.type) {
      case "message":
        if (item.role === "assistant") appendAssistantText(messages, textOf(item.content));
        else appendUser(messages, toUserContent(item.content));
        break;
      case "function_call":
      case "custom_tool_call": {
        const args = item.type === "function_call" ? item.arguments : JSON.stringify({ input: item.input });
        const message = assistant(messages);
        (message.tool_calls ??= []).push({ id: item.callId, type: "function", function: { name: item.name, arguments: args } });
        break;
      }
      case "tool_output":
        if (typeof item.output === "string") {
          messages.push({ role: "tool", tool_call_id: item.callId, content: item.output });
        } else {
          // Tool messages carry text only on this wire: images follow as a user message.
          const text = item.output.map((part) => (part.type === "input_image" ? "[image attached below]" : part.text)).join("\n");
          messages.push({ role: "tool", tool_call_id: item.callId, content: text });
          if (item.output.some((part) => part.type === "input_image")) appendUser(messages, toUserContent(item.output));
        }
        break;
      case "reasoning":
        break;
    }
  }
  return [{ role: "system", content: system }, ...messages];
}

/** The last message if it is an assistant's (text, then tool calls, in one message), else a new one. */
function assistant(messages: ChatMessage[]): Extract<ChatMessage, { role: "assistant" }> {
  const last = messages.at(-1);
  if (last?.role === "assistant") return last;
  const fresh: ChatMessage = { role: "assistant", content: null };
  messages.push(fresh);
  return fresh;
}

function appendAssistantText(messages: ChatMessage[], text: string): void {
  const message = assistant(messages);
  message.content = message.content ? `${message.content}\n\n${text}` : text;
}

/** Adds user content, merged into a user message just before it; after tool results, the assistant speaks first. */
function appendUser(messages: ChatMessage[], content: string | ChatPart[]): void {
  const last = messages.at(-1);
  if (last?.role === "user") {
    last.content = mergeContent(last.content, content);
    return;
  }
  if (last?.role === "tool") messages.push({ role: "assistant", content: TOOL_RESULTS_SEEN });
  messages.push({ role: "user", content });
}

/** Two user contents as one: text joined by a blank line, parts concatenated when either has an image. */
function mergeContent(first: string | ChatPart[], second: string | ChatPart[]): string | ChatPart[] {
  if (typeof first === "string" && typeof second === "string") return first && second ? `${first}\n\n${second}` : first || second;
  return [...asParts(first), ...asParts(second)];
}

function asParts(content: string | ChatPart[]): ChatPart[] {
  return typeof content === "string" ? (content ? [{ type: "text", text: content }] : []) : content;
}


/** Plain text when there is no image (what text-only servers accept), else parts. */
function toUserContent(content: readonly ContentPart[]): string | ChatPart[] {
  if (content.every((part) => part.type !== "input_image")) return textOf(content);
  return content.map((part) => (part.type === "input_image" ? { type: "image_url", image_url: { url: part.image_url } } : { type: "text", text: part.text }));
}
