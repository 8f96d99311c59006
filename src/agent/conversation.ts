import * as z from "zod";
import { lazySchema } from "../protocol/lazySchema.js";

/** One part of a message the model sees or wrote. */
export const ContentPart = lazySchema(() => z.discriminatedUnion("type", [
  z.object({ type: z.literal("input_text"), text: z.string() }),
  z.object({ type: z.literal("input_image"), image_url: z.string(), detail: z.string().optional() }),
  z.object({ type: z.literal("output_text"), text: z.string() }),
]));
export type ContentPart = z.infer<typeof ContentPart>;

/**
 * What a provider asked to get back unchanged with an item (Claude's thinking block and its
 * signature, Gemini's thought signature): only the wire named `wire` reads it.
 */
export const NativeData = lazySchema(() => z.object({ wire: z.string(), data: z.unknown() }));
export type NativeData = z.infer<typeof NativeData>;

/**
 * One entry of the model-visible history, provider-neutral (shaped like Responses API input items,
 * which the chat wire translates). Stored with the thread, replayed in full on every request.
 */
export const ConversationItem = lazySchema(() => z.discriminatedUnion("type", [
  z.object({
    type: z.literal("message"),
    role: z.enum(["user", "assistant", "developer"]),
    content: z.array(ContentPart),
    native: NativeData.optional(),
  }),
  z.object({
    type: z.literal("reasoning"),
    id: z.string(),
    summary: z.array(z.string()),
    content: z.array(z.string()).optional(),
    encryptedContent: z.string().nullable().optional(),
    native: NativeData.optional(),
  }),
  z.object({ type: z.literal("function_call"), callId: z.string(), name: z.string(), arguments: z.string(), native: NativeData.optional() }),
  z.object({ type: z.literal("custom_tool_call"), callId: z.string(), name: z.string(), input: z.string(), native: NativeData.optional() }),
  z.object({
    type: z.literal("tool_output"),
    callId: z.string(),
    /** Output of a `custom_tool_call` (true) or a `function_call` (false). */
    custom: z.boolean(),
    /** Text, or content parts when the tool returns images (`view_image`). */
    output: z.union([z.string(), z.array(ContentPart)]),
  }),
]));
export type ConversationItem = z.infer<typeof ConversationItem>;

/** A tool call the model made. */
export type ToolCall = Extract<ConversationItem, { type: "function_call" | "custom_tool_call" }>;

/** A user-role text message. */
export function userText(text: string): ConversationItem {
  return { type: "message", role: "user", content: [{ type: "input_text", text }] };
}
