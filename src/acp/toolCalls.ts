import path from "node:path";
import type { ItemGuardianApprovalReviewStartedNotification, ThreadItem } from "../protocol/index.js";
import type { ToolCall, ToolCallContent, ToolCallLocation, ToolCallStatus, ToolCallUpdate, ToolKind } from "../vendor/acp.js";

type ItemOf<T extends ThreadItem["type"]> = Extract<ThreadItem, { type: T }>;
type CommandItem = ItemOf<"commandExecution">;
type FileChange = ItemOf<"fileChange">["changes"][number];

/** Command output shown in a tool call is its last this many characters: an editor re-renders the whole text each update. */
export const SHOWN_OUTPUT_CHARS = 64 * 1024;

/** An item as the ACP tool call it starts; undefined for items that are not tool calls (messages, reasoning). */
export function toolCallOf(item: ThreadItem): ToolCall | undefined {
  const status = statusOf(item) ?? "in_progress";
  switch (item.type) {
    case "commandExecution":
      return { toolCallId: item.id, ...commandShape(item), status, rawInput: { command: item.command, cwd: item.cwd } };
    case "fileChange":
      return {
        toolCallId: item.id,
        title: `Edit ${item.changes.map((change) => change.path).join(", ")}`,
        kind: "edit",
        status,
        locations: item.changes.map((change) => ({ path: change.kind.type === "update" && change.kind.move_path ? change.kind.move_path : change.path })),
        content: item.changes.flatMap(diffContent),
      };
    case "mcpToolCall":
      return { toolCallId: item.id, title: `Tool: ${item.server}/${item.tool}`, kind: "other", status, rawInput: item.arguments };
    case "dynamicToolCall":
      return { toolCallId: item.id, title: `Tool: ${item.namespace ? `${item.namespace}/` : ""}${item.tool}`, kind: "other", status, rawInput: item.arguments };
    case "webSearch":
      return { toolCallId: item.id, title: item.query ? `Searching for: ${item.query}` : "Searching the Web", kind: "fetch", status };
    case "imageView":
      return { toolCallId: item.id, title: `View ${item.path}`, kind: "read", status, locations: [{ path: item.path }] };
    default:
      return undefined;
  }
}

/** What a completed item adds to its tool call: its final status, output and result. */
export function toolCallDone(item: ThreadItem): ToolCallUpdate | undefined {
  const started = toolCallOf(item);
  if (!started) return undefined;
  const update: ToolCallUpdate = { toolCallId: item.id, status: statusOf(item) ?? "completed" };
  switch (item.type) {
    case "commandExecution":
      return { ...update, content: outputContent(item.aggregatedOutput ?? ""), rawOutput: { exitCode: item.exitCode ?? null, durationMs: item.durationMs ?? null } };
    case "fileChange":
      return { ...update, content: started.content ?? [] };
    case "mcpToolCall":
      return { ...update, content: item.result ? mcpContent(item.result.content) : text(item.error?.message ?? ""), rawOutput: item.result ?? item.error ?? null };
    case "dynamicToolCall":
      return { ...update, content: (item.contentItems ?? []).flatMap((part) => (part.type === "inputText" ? text(part.text) : [])) };
    default:
      return update;
  }
}

/** An automatic review of an action (the reviewer model deciding for the user), as a `think` tool call. */
export function reviewCall(review: ItemGuardianApprovalReviewStartedNotification): ToolCall {
  const { action } = review;
  const what = action.type === "command" ? oneLine(action.command) : `a patch to ${action.files.join(", ")}`;
  return { toolCallId: review.reviewId, title: `Reviewing ${what}`, kind: "think", status: "in_progress", rawInput: action };
}

/** How an automatic review ended: approved (completed), else failed, with the reviewer's rationale. */
export function reviewDone(review: ItemGuardianApprovalReviewStartedNotification): ToolCallUpdate {
  const { status, rationale } = review.review;
  return { toolCallId: review.reviewId, status: status === "approved" ? "completed" : "failed", content: text(rationale ?? status), rawOutput: review.review };
}

/** A command's output so far, as the tool call's content. */
export function outputContent(output: string): ToolCallContent[] {
  if (output.length === 0) return [];
  const shown = output.length > SHOWN_OUTPUT_CHARS ? `…${output.slice(-SHOWN_OUTPUT_CHARS)}` : output;
  // A fence longer than any run of backticks in the output, so the output cannot close it.
  const fence = "`".repeat(Math.max(3, ...[...shown.matchAll(/`+/g)].map((run) => run[0].length + 1)));
  return text(`${fence}sh\n${shown.endsWith("\n") ? shown : `${shown}\n`}${fence}`);
}

/**
 * Text as one line an editor can show as a title: terminal escape sequences and other control
 * characters removed, line breaks shown as ⏎. A title is often shown as one line: `ls` followed by
 * blank lines would otherwise hide the rest of a script (what a permission prompt asks about).
 */
export function oneLine(text: string): string {
  return text.replace(/\x1b\[[0-?]*[ -/]*[@-~]|\x1b[@-_]/g, "").replace(/\r?\n/g, " ⏎ ").replace(/[\x00-\x08\x0b-\x1f\x7f]/g, "");
}

/** How a command reads to an editor: what its actions say it does (read a file, list, search), else the command itself. */
function commandShape(item: CommandItem): { title: string; kind: ToolKind; locations?: ToolCallLocation[] } {
  const actions = item.commandActions;
  if (actions.length === 0 || actions.some((action) => action.type === "unknown")) return { title: oneLine(item.command), kind: "execute" };
  const titles = actions.map((action) => {
    if (action.type === "read") return `Read ${action.name}`;
    if (action.type === "listFiles") return `List ${action.path ?? "files"}`;
    if (action.type === "search") return action.query ? `Search ${action.query}${action.path ? ` in ${action.path}` : ""}` : `Search ${action.command}`;
    return action.command;
  });
  // ACP's paths are absolute; an action's is as the command wrote it, from where it ran.
  const locations = actions.flatMap((action) => (action.type === "read" ? [{ path: path.resolve(item.cwd, action.path) }] : []));
  return { title: oneLine(titles.join(", ")), kind: actions.every((action) => action.type === "read") ? "read" : "search", ...(locations.length > 0 ? { locations } : {}) };
}

function statusOf(item: ThreadItem): ToolCallStatus | undefined {
  const status = "status" in item ? (item.status as string | undefined) : undefined;
  if (status === undefined) return undefined;
  if (status === "inProgress") return "in_progress";
  if (status === "completed") return "completed";
  return "failed";
}

/**
 * A change as diff content: a new file's text, a deleted file's, or each hunk of an update with the
 * text around it before and after (the item carries the unified diff, not the whole file).
 */
function diffContent(change: FileChange): ToolCallContent[] {
  const { path } = change;
  if (change.kind.type === "add") return [{ type: "diff", path, oldText: null, newText: change.diff }];
  if (change.kind.type === "delete") return [{ type: "diff", path, oldText: change.diff, newText: "" }];
  const target = change.kind.move_path ?? path;
  const hunks: ToolCallContent[] = [];
  let before: string[] | null = null;
  let after: string[] = [];
  const flush = () => {
    if (before) hunks.push({ type: "diff", path: target, oldText: before.join("\n"), newText: after.join("\n") });
  };
  for (const line of change.diff.split("\n")) {
    if (line.startsWith("@@")) {
      flush();
      before = [];
      after = [];
    } else if (before && !line.startsWith("\\")) {
      const body = line.slice(1);
      if (line.startsWith("-")) before.push(body);
      else if (line.startsWith("+")) after.push(body);
      else if (line.startsWith(" ")) {
        before.push(body);
        after.push(body);
      }
    }
  }
  flush();
  return hunks;
}

function mcpContent(blocks: readonly unknown[]): ToolCallContent[] {
  return blocks.flatMap((block) => {
    const content = block as { type?: unknown; text?: unknown };
    return content.type === "text" && typeof content.text === "string" ? text(content.text) : text(JSON.stringify(block));
  });
}

function text(value: string): ToolCallContent[] {
  return value.length === 0 ? [] : [{ type: "content", content: { type: "text", text: value } }];
}
