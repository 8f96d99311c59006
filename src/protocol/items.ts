import * as z from "zod";
import { lazySchema } from "./lazySchema.js";
import { UserInput } from "./userInput.js";

/** What a command does, parsed best-effort for display. */
export const CommandAction = lazySchema(() => z.discriminatedUnion("type", [
  z.object({ type: z.literal("read"), command: z.string(), name: z.string(), path: z.string() }),
  z.object({ type: z.literal("listFiles"), command: z.string(), path: z.string().nullable().optional() }),
  z.object({
    type: z.literal("search"),
    command: z.string(),
    query: z.string().nullable().optional(),
    path: z.string().nullable().optional(),
  }),
  z.object({ type: z.literal("unknown"), command: z.string() }),
]));
export type CommandAction = z.infer<typeof CommandAction>;

/** Lifecycle of a command execution item. */
export const CommandExecutionStatus = lazySchema(() => z.enum(["inProgress", "completed", "failed", "declined"]));
/** Where a command execution came from. */
export const CommandExecutionSource = lazySchema(() => z.enum(["agent", "userShell", "unifiedExecStartup", "unifiedExecInteraction"]));
/** Lifecycle of a file change item. */
export const PatchApplyStatus = lazySchema(() => z.enum(["inProgress", "completed", "failed", "declined"]));
/** Lifecycle of MCP and client tool call items. */
export const ToolCallStatus = lazySchema(() => z.enum(["inProgress", "completed", "failed"]));

/** The kind of change to one file (`move_path` is snake_case on the wire). */
export const PatchChangeKind = lazySchema(() => z.discriminatedUnion("type", [
  z.object({ type: z.literal("add") }),
  z.object({ type: z.literal("delete") }),
  z.object({ type: z.literal("update"), move_path: z.string().nullable().optional() }),
]));

/** One file touched by a patch, with its diff. */
export const FileUpdateChange = lazySchema(() => z.object({ path: z.string(), kind: PatchChangeKind, diff: z.string() }));
export type FileUpdateChange = z.infer<typeof FileUpdateChange>;

/** Content returned by a client-side (dynamic) tool. */
export const DynamicToolCallOutputContentItem = lazySchema(() => z.discriminatedUnion("type", [
  z.object({ type: z.literal("inputText"), text: z.string() }),
  z.object({ type: z.literal("inputImage"), imageUrl: z.string() }),
  z.object({ type: z.literal("inputAudio"), audioUrl: z.string() }),
]));

/** What a web search item did. */
export const WebSearchAction = lazySchema(() => z.discriminatedUnion("type", [
  z.object({
    type: z.literal("search"),
    query: z.string().nullable().optional(),
    queries: z.array(z.string()).nullable().optional(),
  }),
  z.object({ type: z.literal("openPage"), url: z.string().nullable().optional() }),
  z.object({
    type: z.literal("findInPage"),
    url: z.string().nullable().optional(),
    pattern: z.string().nullable().optional(),
  }),
  z.object({ type: z.literal("other") }),
]));

export const UserMessageItem = lazySchema(() => z.object({
  type: z.literal("userMessage"),
  id: z.string(),
  clientId: z.string().nullable().optional(),
  content: z.array(UserInput),
}));

export const AgentMessageItem = lazySchema(() => z.object({
  type: z.literal("agentMessage"),
  id: z.string(),
  text: z.string(),
  phase: z.enum(["commentary", "partial_answer", "final_answer"]).nullable().optional(),
  memoryCitation: z.unknown().optional(),
  delivery: z.enum(["async"]).nullable().optional(),
  questions: z.array(z.object({ title: z.string(), options: z.array(z.string()).nullable().optional() })).nullable().optional(),
  moderation: z.unknown().optional(),
}));

export const PlanItem = lazySchema(() => z.object({ type: z.literal("plan"), id: z.string(), text: z.string() }));

export const ReasoningItem = lazySchema(() => z.object({
  type: z.literal("reasoning"),
  id: z.string(),
  summary: z.array(z.string()).optional(),
  content: z.array(z.string()).optional(),
}));

export const CommandExecutionItem = lazySchema(() => z.object({
  type: z.literal("commandExecution"),
  id: z.string(),
  command: z.string(),
  cwd: z.string(),
  processId: z.string().nullable().optional(),
  source: CommandExecutionSource.optional(),
  status: CommandExecutionStatus,
  commandActions: z.array(CommandAction),
  aggregatedOutput: z.string().nullable().optional(),
  exitCode: z.number().int().nullable().optional(),
  durationMs: z.number().int().nullable().optional(),
  pluginId: z.string().nullable().optional(),
  scriptPath: z.string().nullable().optional(),
}));

export const FileChangeItem = lazySchema(() => z.object({
  type: z.literal("fileChange"),
  id: z.string(),
  changes: z.array(FileUpdateChange),
  status: PatchApplyStatus,
}));

export const McpToolCallItem = lazySchema(() => z.object({
  type: z.literal("mcpToolCall"),
  id: z.string(),
  server: z.string(),
  tool: z.string(),
  status: ToolCallStatus,
  arguments: z.unknown(),
  result: z
    .object({
      content: z.array(z.unknown()),
      structuredContent: z.unknown().optional(),
      _meta: z.unknown().optional(),
    })
    .nullable()
    .optional(),
  error: z.object({ message: z.string() }).nullable().optional(),
  durationMs: z.number().int().nullable().optional(),
}));

export const DynamicToolCallItem = lazySchema(() => z.object({
  type: z.literal("dynamicToolCall"),
  id: z.string(),
  namespace: z.string().nullable().optional(),
  tool: z.string(),
  arguments: z.unknown(),
  status: ToolCallStatus,
  contentItems: z.array(DynamicToolCallOutputContentItem).nullable().optional(),
  success: z.boolean().nullable().optional(),
  durationMs: z.number().int().nullable().optional(),
}));

export const WebSearchItem = lazySchema(() => z.object({
  type: z.literal("webSearch"),
  id: z.string(),
  query: z.string(),
  action: WebSearchAction.nullable().optional(),
}));

export const ImageViewItem = lazySchema(() => z.object({ type: z.literal("imageView"), id: z.string(), path: z.string() }));

export const EnteredReviewModeItem = lazySchema(() => z.object({
  type: z.literal("enteredReviewMode"),
  id: z.string(),
  review: z.string(),
}));

export const ExitedReviewModeItem = lazySchema(() => z.object({
  type: z.literal("exitedReviewMode"),
  id: z.string(),
  review: z.string(),
}));

export const ContextCompactionItem = lazySchema(() => z.object({ type: z.literal("contextCompaction"), id: z.string() }));

/** When an item started and completed (Unix ms); Codex sends them on every item. */
const ItemTimes = {
  startedAtMs: z.number().int().nullable().optional(),
  completedAtMs: z.number().int().nullable().optional(),
};

/** One entry of a turn: what the user said, what the agent said or did. */
export const ThreadItem = lazySchema(() => z.discriminatedUnion("type", [
  UserMessageItem.extend(ItemTimes),
  AgentMessageItem.extend(ItemTimes),
  PlanItem.extend(ItemTimes),
  ReasoningItem.extend(ItemTimes),
  CommandExecutionItem.extend(ItemTimes),
  FileChangeItem.extend(ItemTimes),
  McpToolCallItem.extend(ItemTimes),
  DynamicToolCallItem.extend(ItemTimes),
  WebSearchItem.extend(ItemTimes),
  ImageViewItem.extend(ItemTimes),
  EnteredReviewModeItem.extend(ItemTimes),
  ExitedReviewModeItem.extend(ItemTimes),
  ContextCompactionItem.extend(ItemTimes),
]));
export type ThreadItem = z.infer<typeof ThreadItem>;
