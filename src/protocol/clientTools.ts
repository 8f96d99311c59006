import * as z from "zod";
import { lazySchema } from "./lazySchema.js";
import { DynamicToolCallOutputContentItem } from "./items.js";

/** A tool a client declares for the model (`thread/start.dynamicTools`, experimental). */
export const DynamicFunctionTool = lazySchema(() => z.object({
  type: z.literal("function").optional(),
  name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "tool names are 1–64 letters, digits, `_` or `-`"),
  description: z.string(),
  inputSchema: z.unknown(),
  /** Loaded on demand through tool search in Codex; this server does not offer such tools. */
  deferLoading: z.boolean().optional(),
}));
export type DynamicFunctionTool = z.infer<typeof DynamicFunctionTool>;

/** One dynamic tool, or a namespace grouping several. */
export const DynamicToolSpec = lazySchema(() => z.union([
  z.object({
    type: z.literal("namespace"),
    name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "namespace names are 1–64 letters, digits, `_` or `-`"),
    description: z.string(),
    tools: z.array(DynamicFunctionTool),
  }),
  DynamicFunctionTool,
]));
export type DynamicToolSpec = z.infer<typeof DynamicToolSpec>;

/** Params of the server→client request `item/tool/call`: run a client-declared tool. */
export const DynamicToolCallParams = lazySchema(() => z.object({
  threadId: z.string(),
  turnId: z.string(),
  callId: z.string(),
  namespace: z.string().nullable().optional(),
  tool: z.string(),
  arguments: z.unknown(),
}));
export type DynamicToolCallParams = z.infer<typeof DynamicToolCallParams>;

/** The client's result of a tool call; its text goes back to the model. */
export const DynamicToolCallResponse = lazySchema(() => z.object({
  contentItems: z.array(DynamicToolCallOutputContentItem),
  success: z.boolean(),
}));
export type DynamicToolCallResponse = z.infer<typeof DynamicToolCallResponse>;

/** A choice offered with a question. */
export const ToolRequestUserInputOption = lazySchema(() => z.object({ label: z.string(), description: z.string() }));

/** One question the model puts to the user. */
export const ToolRequestUserInputQuestion = lazySchema(() => z.object({
  id: z.string(),
  header: z.string(),
  question: z.string(),
  isOther: z.boolean().optional(),
  isSecret: z.boolean().optional(),
  options: z.array(ToolRequestUserInputOption).nullable().optional(),
}));
export type ToolRequestUserInputQuestion = z.infer<typeof ToolRequestUserInputQuestion>;

/** Params of the server→client request `item/tool/requestUserInput`. */
export const ToolRequestUserInputParams = lazySchema(() => z.object({
  threadId: z.string(),
  turnId: z.string(),
  itemId: z.string(),
  questions: z.array(ToolRequestUserInputQuestion),
  isBlocking: z.boolean(),
  autoResolutionMs: z.number().int().nonnegative().nullable().optional(),
}));
export type ToolRequestUserInputParams = z.infer<typeof ToolRequestUserInputParams>;

/** The user's answers, by question id. */
export const ToolRequestUserInputResponse = lazySchema(() => z.object({
  answers: z.record(z.string(), z.object({ answers: z.array(z.string()) })),
}));
export type ToolRequestUserInputResponse = z.infer<typeof ToolRequestUserInputResponse>;
