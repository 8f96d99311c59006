import { splitWords } from "../agent/exec/shellWords.js";
import { qualifiedToolName } from "../agent/mcp/toolNames.js";
import type { MockItem, MockResponseInput } from "../testing/mockScript.js";
import { usageOf } from "./responseRecorder.js";
import type { AuditLine } from "./sessionScenario.js";

type Response = MockResponseInput & { items: MockItem[] };

/**
 * The model's responses as a session's notifications show them, for a log that holds no model
 * traffic (`record --from-session-log`): each turn's completed items in order, a new response
 * after each run of tool calls (commands and patches), messages with the deltas clients saw,
 * usage from `thread/tokenUsage/updated`. Commands become `exec_command` calls (escalated when
 * the client was asked to approve them), patches `apply_patch` calls rebuilt from their diffs, MCP
 * and client tool calls function calls of the names the model knows them by.
 * An interrupted turn's last response hangs. Items no scripted call can make are left out and named.
 */
export function responsesFromItems(lines: readonly AuditLine[]): { responses: MockResponseInput[]; omitted: string[] } {
  const responses: Response[] = [];
  const omitted = new Set<string>();
  const deltas = new Map<string, string[]>();
  const approved = new Set<string>();
  // The response being rebuilt, and whether its last item was a tool call.
  const at: { current: Response | null; afterTools: boolean } = { current: null, afterTools: false };
  const push = (item: MockItem, tool: boolean) => {
    if (!at.current || (at.afterTools && !tool)) {
      at.current = { items: [] };
      responses.push(at.current);
    }
    at.current.items.push(item);
    at.afterTools = tool;
  };
  for (const { dir, msg } of lines) {
    if (dir !== "out" || typeof msg.method !== "string") continue;
    const params = msg.params ?? {};
    switch (msg.method) {
      case "turn/started":
        at.current = null;
        at.afterTools = false;
        break;
      case "item/agentMessage/delta":
        deltas.set(params.itemId, [...(deltas.get(params.itemId) ?? []), params.delta]);
        break;
      case "item/commandExecution/requestApproval":
      case "item/fileChange/requestApproval":
        approved.add(params.itemId);
        break;
      case "thread/tokenUsage/updated": {
        const last = params.tokenUsage?.last;
        if (at.current && last) at.current.usage = usageOf(last);
        break;
      }
      case "turn/completed":
        // Interrupted while the model streamed: its response hangs there. While a tool ran, the response had ended.
        if (params.turn?.status === "interrupted" && at.current && !at.afterTools) at.current.hang = true;
        break;
      case "item/completed": {
        const item = params.item ?? {};
        if (item.type === "agentMessage") push({ type: "message", deltas: deltas.get(item.id) ?? [item.text] }, false);
        else if (item.type === "reasoning") push({ type: "reasoning", summary: item.summary ?? [], ...(item.content?.length ? { content: item.content } : {}) }, false);
        else if (item.type === "commandExecution" && (item.source ?? "agent") === "agent") {
          push({ type: "exec", cmd: scriptOf(item.command), callId: item.id, ...(approved.has(item.id) ? { sandbox_permissions: "require_escalated" } : {}) }, true);
        } else if (item.type === "fileChange") push({ type: "apply_patch", patch: patchOf(item.changes ?? []), callId: item.id }, true);
        else if (item.type === "mcpToolCall") push({ type: "function_call", name: qualifiedToolName(item.server, item.tool), arguments: item.arguments ?? {}, callId: item.id }, true);
        else if (item.type === "dynamicToolCall") push({ type: "function_call", name: item.namespace ? `${item.namespace}__${item.tool}` : item.tool, arguments: item.arguments ?? {}, callId: item.id }, true);
        else if (item.type !== "userMessage" && item.type !== "commandExecution") omitted.add(item.type);
        break;
      }
    }
  }
  return { responses, omitted: [...omitted] };
}

/** The script of a displayed command (`/bin/bash -lc 'ls -la'` → `ls -la`), which is what the model asked to run. */
function scriptOf(command: string): string {
  const words = splitWords(command);
  return words?.length === 3 && /(^|\/)bash$/.test(words[0]!) && words[1] === "-lc" ? words[2]! : command;
}

/** An apply_patch text that makes `changes` (as `item/completed` carries them) again. */
function patchOf(changes: ReadonlyArray<{ path: string; kind: { type: string; move_path?: string | null }; diff: string }>): string {
  const lines = ["*** Begin Patch"];
  for (const change of changes) {
    if (change.kind.type === "add") {
      lines.push(`*** Add File: ${change.path}`, ...textLines(change.diff).map((line) => `+${line}`));
    } else if (change.kind.type === "delete") {
      lines.push(`*** Delete File: ${change.path}`);
    } else {
      lines.push(`*** Update File: ${change.path}`);
      if (change.kind.move_path) lines.push(`*** Move to: ${change.kind.move_path}`);
      // A unified diff's hunks are apply_patch's, once their line numbers are dropped.
      for (const line of textLines(change.diff)) lines.push(line.startsWith("@@") ? "@@" : line);
    }
  }
  lines.push("*** End Patch");
  return lines.join("\n") + "\n";
}

function textLines(text: string): string[] {
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}
