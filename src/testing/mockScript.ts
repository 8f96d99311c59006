import * as z from "zod";
import { issuePath } from "./issuePath.js";

const CallId = z.string().optional();

/** One output item of a scripted model response. */
export const MockItem = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("message"),
    id: z.string().optional(),
    text: z.string().optional(),
    deltas: z.array(z.string()).optional(),
    /** Send `delta` this many times (streaming throughput tests). */
    repeat: z.number().int().positive().optional(),
    delta: z.string().optional(),
  }),
  z.object({
    type: z.literal("reasoning"),
    id: z.string().optional(),
    summary: z.array(z.string()).optional(),
    content: z.array(z.string()).optional(),
    encryptedContent: z.string().optional(),
  }),
  z.object({
    type: z.literal("function_call"),
    name: z.string(),
    arguments: z.union([z.string(), z.record(z.string(), z.unknown())]).optional(),
    callId: CallId,
  }),
  z.object({ type: z.literal("custom_tool_call"), name: z.string(), input: z.string().optional(), callId: CallId }),
  /** Codex's `exec_command` call; every other field becomes an argument. */
  z.looseObject({ type: z.literal("exec"), cmd: z.string(), callId: CallId, tool: z.string().optional() }),
  /** A `shell_command` (string) or `shell` (argv) call. */
  z.looseObject({
    type: z.literal("shell"),
    command: z.union([z.string(), z.array(z.string())]),
    callId: CallId,
    tool: z.string().optional(),
  }),
  /** An `apply_patch` call, freeform (`custom`, the default) or as a function with `input`. */
  z.object({ type: z.literal("apply_patch"), patch: z.string(), callId: CallId, as: z.enum(["custom", "function"]).optional() }),
]);
export type MockItem = z.infer<typeof MockItem>;

/** Token usage a scripted response reports (defaults: 10 in, 5 out). */
export const MockUsage = z.object({
  input_tokens: z.number().int().nonnegative().optional(),
  cached_tokens: z.number().int().nonnegative().optional(),
  output_tokens: z.number().int().nonnegative().optional(),
  reasoning_tokens: z.number().int().nonnegative().optional(),
  total_tokens: z.number().int().nonnegative().optional(),
});

/** How a Chat Completions answer streams, to play the habits of real OpenAI-compatible servers. */
export const MockChatStyle = z.object({
  /**
   * `whole` (default): each tool call in one chunk (Ollama, llama.cpp); `split`: id and name in
   * a call's first chunk, its arguments in two more (OpenAI); `repeated`: id and name again in
   * every chunk (some vLLM tool parsers); `sameIndex`: whole calls, all at index 0 (Ollama's bug).
   */
  toolCalls: z.enum(["whole", "split", "repeated", "sameIndex"]).optional(),
  /** `chunk` (default): a last chunk with `choices: []`; `withFinish`: in the finish_reason chunk; `none`: no usage. */
  usage: z.enum(["chunk", "withFinish", "none"]).optional(),
  /** The delta field reasoning streams in: `reasoning_content` (default; vLLM, DeepSeek) or `reasoning` (Ollama, OpenRouter). */
  reasoningField: z.enum(["reasoning_content", "reasoning"]).optional(),
});

/** One scripted model response: streamed items, or an HTTP error, or a broken stream. */
export const MockResponse = z.object({
  items: z.array(MockItem).default([]),
  usage: MockUsage.optional(),
  /** Delay before each streamed event (ms). */
  delayMs: z.number().nonnegative().optional(),
  /** Delay before each text delta only (ms). */
  deltaDelayMs: z.number().nonnegative().optional(),
  /** Delay before the response starts (ms). */
  startDelayMs: z.number().nonnegative().optional(),
  /** Answer with this HTTP status and `errorBody` instead of a stream. */
  httpStatus: z.number().int().min(400).max(599).optional(),
  errorBody: z.unknown().optional(),
  /** Extra response headers (e.g. `retry-after`). */
  headers: z.record(z.string(), z.string()).optional(),
  /** Cut the connection after this many events. */
  disconnectAfter: z.number().int().nonnegative().optional(),
  /** Stream the items, then never finish. */
  hang: z.boolean().optional(),
  /** Send this many events, then stall: the connection stays open and nothing more comes. */
  stallAfter: z.number().int().nonnegative().optional(),
  /** End with `response.failed` carrying this error. */
  failed: z.object({ code: z.string().optional(), message: z.string().optional() }).optional(),
  /** How the chat wire streams this response (the Responses wire ignores it). */
  chat: MockChatStyle.optional(),
});
export type MockResponse = z.infer<typeof MockResponse>;
export type MockResponseInput = z.input<typeof MockResponse>;

/** Validates a script (a list of responses, or an object with a `model` or `responses` list); the error names the bad entry (e.g. `model[2].items[0].type`). */
export function parseMockScript(value: unknown): MockResponse[] {
  const list = Array.isArray(value) ? z.array(MockResponse).safeParse(value) : parseObjectScript(value);
  if (list.success) return list.data;
  const issue = list.error.issues[0]!;
  const where = issuePath(issue.path);
  throw new Error(`invalid model script at ${where || "top level"}: ${issue.message}`);
}

function parseObjectScript(value: unknown) {
  const key = typeof value === "object" && value !== null && "responses" in value ? "responses" : "model";
  return z.looseObject({ [key]: z.array(MockResponse) }).transform((script) => script[key] as MockResponse[]).safeParse(value);
}
