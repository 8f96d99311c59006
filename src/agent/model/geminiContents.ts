import type { Content, Part } from "../../vendor/genai.js";
import type { ContentPart, ConversationItem, NativeData } from "../conversation.js";
import type { ModelRequest } from "./modelClient.js";
import { splitSystemPrompt, textOf } from "./systemPrompt.js";

/** What a Gemini part carried that must come back with it, kept as the `native` data of its item. */
export interface GeminiNative {
  /** The part's thought signature: sent back, unchanged, on the same part. */
  readonly thoughtSignature?: string;
  /** The response a function call came in: the calls of one response go back as one model turn. */
  readonly responseId?: string;
}

/** The name native data of this wire carries. */
export const GEMINI_WIRE = "gemini";

/**
 * Gemini 3 refuses a history whose function calls lack the signature it gave them; calls another
 * wire made (the thread switched providers) get this placeholder, which Google documents for
 * exactly that case.
 */
const FOREIGN_CALL_SIGNATURE = "skip_thought_signature_validator";

/** The native data of an item this wire made, or null for an item of another wire. */
export function geminiNative(native: NativeData | undefined): GeminiNative | null {
  if (native?.wire !== GEMINI_WIRE || typeof native.data !== "object" || native.data === null) return null;
  return native.data as GeminiNative;
}

/** A request's history as Gemini's `systemInstruction` and `contents`. */
export interface GeminiPrompt {
  readonly systemInstruction: string;
  readonly contents: Content[];
}

/**
 * The history as Gemini contents: the base instructions and the developer messages before the
 * conversation are the system instruction; the rest alternates `user` and `model` contents,
 * consecutive items of one side merged into one content. A developer message inside the
 * conversation joins the user's side as text. Function calls of one response form one model turn
 * and their results one user turn, each result named after its call; images a tool returned follow
 * the results. Signatures go back on the parts they came with; reasoning goes back only when it
 * carried one (Gemini needs no thoughts back, only their signatures).
 */
export function geminiPrompt(request: ModelRequest): GeminiPrompt {
  const { system, conversation } = splitSystemPrompt(request);
  const names = new Map<string, string>();
  for (const item of request.input) if (item.type === "function_call" || item.type === "custom_tool_call") names.set(item.callId, item.name);
  const contents: Content[] = [];
  // The model turn holding the calls of the response being replayed, while only their results follow it.
  let step: { readonly responseId: string; readonly content: Content } | null = null;
  for (const item of conversation) {
    if (item.type === "message" || item.type === "reasoning") step = null;
    switch (item.type) {
      case "message":
        if (item.role === "assistant") append(contents, "model", [withSignature({ text: textOf(item.content) }, item.native)]);
        else append(contents, "user", item.content.map(userPart));
        break;
      case "reasoning": {
        const signature = geminiNative(item.native)?.thoughtSignature;
        if (signature) append(contents, "model", [{ text: item.summary.join(""), thought: true, thoughtSignature: signature }]);
        break;
      }
      case "function_call":
      case "custom_tool_call": {
        const part = withSignature({ functionCall: { id: item.callId, name: item.name, args: argsOf(item) } }, item.native);
        const responseId = geminiNative(item.native)?.responseId;
        if (step && responseId === step.responseId) step.content.parts!.push(part);
        else {
          const content = append(contents, "model", [part]);
          step = responseId && content ? { responseId, content } : null;
        }
        break;
      }
      case "tool_output":
        appendResult(contents, item, names.get(item.callId) ?? "");
        break;
    }
  }
  if (/^(models\/)?gemini-3/.test(request.model)) signForeignCalls(contents);
  return { systemInstruction: system, contents };
}

/**
 * Adds parts to the last content if it is the same side's, else as a new content; parts without
 * anything in them are left out (Gemini refuses empty text). Returns the content they went to.
 */
function append(contents: Content[], role: "user" | "model", parts: Part[]): Content | null {
  const kept = parts.filter((part) => part.text !== "" || part.thoughtSignature);
  if (kept.length === 0) return null;
  const last = contents.at(-1);
  if (last?.role === role) {
    last.parts!.push(...kept);
    return last;
  }
  const content: Content = { role, parts: kept };
  contents.push(content);
  return content;
}

/** A tool's result as a `functionResponse`, after the results before it; the images it returned follow as the user's. */
function appendResult(contents: Content[], item: Extract<ConversationItem, { type: "tool_output" }>, name: string): void {
  const text = typeof item.output === "string" ? item.output : item.output.map((part) => (part.type === "input_image" ? "[image attached below]" : part.text)).join("\n");
  const result: Part = { functionResponse: { id: item.callId, name, response: { output: text } } };
  const images = typeof item.output === "string" ? [] : item.output.filter((part) => part.type === "input_image").map(userPart);
  const last = contents.at(-1);
  if (last?.role !== "user") {
    contents.push({ role: "user", parts: [result, ...images] });
    return;
  }
  const parts = last.parts!;
  const previous = parts.findLastIndex((part) => part.functionResponse !== undefined);
  parts.splice(previous >= 0 ? previous + 1 : parts.length, 0, result);
  parts.push(...images);
}

/** Gives the first call of each model turn that has no signature the documented placeholder. */
function signForeignCalls(contents: readonly Content[]): void {
  for (const content of contents) {
    const call = content.role === "model" ? content.parts?.find((part) => part.functionCall) : undefined;
    if (call && !call.thoughtSignature) call.thoughtSignature = FOREIGN_CALL_SIGNATURE;
  }
}

function withSignature(part: Part, native: NativeData | undefined): Part {
  const signature = geminiNative(native)?.thoughtSignature;
  return signature ? { ...part, thoughtSignature: signature } : part;
}

/** A call's arguments as the object Gemini wants: a function's JSON arguments, a freeform tool's `input`. */
function argsOf(item: Extract<ConversationItem, { type: "function_call" | "custom_tool_call" }>): Record<string, unknown> {
  if (item.type === "custom_tool_call") return { input: item.input };
  try {
    const parsed: unknown = JSON.parse(item.arguments);
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // Not JSON (another wire's model wrote it): sent as the text it is.
  }
  return { arguments: item.arguments };
}

/** A user content part: text, an image of a data URL inline, any other image by its URL. */
function userPart(part: ContentPart): Part {
  if (part.type !== "input_image") return { text: part.text };
  const data = /^data:([^;,]*)((?:;[^;,]*)*),(.*)$/s.exec(part.image_url);
  if (!data) return { fileData: { fileUri: part.image_url } };
  const [, mimeType = "", parameters = "", payload = ""] = data;
  const base64 = parameters.split(";").includes("base64") ? payload : Buffer.from(decodeURIComponent(payload)).toString("base64");
  return { inlineData: { mimeType: mimeType || "application/octet-stream", data: base64 } };
}
