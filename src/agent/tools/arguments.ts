import type { z } from "zod";
import type { ToolCall } from "../conversation.js";

/** Parsed tool arguments, or the message the model gets back when they do not parse. */
export type ParsedArguments<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly message: string };

/** Parses a function call's JSON arguments with `schema`; errors name the bad field so the model can fix its call. */
export function parseArguments<T>(call: ToolCall, schema: z.ZodType<T>): ParsedArguments<T> {
  let raw: unknown;
  try {
    raw = JSON.parse(call.type === "function_call" ? call.arguments || "{}" : call.input);
  } catch (error) {
    return { ok: false, message: `failed to parse function arguments: ${(error as Error).message}` };
  }
  const result = schema.safeParse(raw);
  if (result.success) return { ok: true, value: result.data };
  const issue = result.error.issues[0]!;
  const where = issue.path.length > 0 ? `\`${issue.path.join(".")}\`: ` : "";
  return { ok: false, message: `failed to parse function arguments: ${where}${issue.message}` };
}

/** A call's arguments as items show them: the JSON value when they parse, else the raw text. */
export function shownArguments(call: ToolCall): unknown {
  const raw = call.type === "function_call" ? call.arguments || "{}" : call.input;
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}
