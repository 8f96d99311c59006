import type { ThreadHistory } from "../threads/threadHistory.js";
import type { AuditLine } from "./sessionScenario.js";

/** `thread/start`'s sandbox policy type → the `sandbox_mode` that gives it. */
export const SANDBOX_MODES: Readonly<Record<string, string>> = { readOnly: "read-only", workspaceWrite: "workspace-write", dangerFullAccess: "danger-full-access" };

/**
 * A stored thread as the messages of a session that made it (`record --from-thread`): the client
 * starts the thread in its cwd and each turn with its user message, waits for it to end (or
 * interrupts it), declines the commands that were declined, and answers its own tools' calls as
 * their items show. Approvals are asked as `on-request` asks them: a declined command was asked
 * for (and is escalated in the rebuilt call), others were not, since the thread does not keep which were.
 */
export function sessionFromThread(history: ThreadHistory): { lines: AuditLine[]; config: Record<string, string> } {
  const settings = history.settings;
  const threadId = history.identity.id;
  const lines: AuditLine[] = [];
  const config: Record<string, string> = { model: settings.model, approval_policy: "on-request" };
  const sandbox = SANDBOX_MODES[settings.sandbox.type];
  if (sandbox) config.sandbox_mode = sandbox;
  const { dynamicTools } = history.identity;
  let nextId = 1;
  if (dynamicTools?.length) {
    // Declaring tools is experimental: the client said it uses experimental API.
    lines.push({ dir: "in", msg: { id: nextId, method: "initialize", params: { clientInfo: { name: "record", version: "0" }, capabilities: { experimentalApi: true } } } });
    lines.push({ dir: "out", msg: { id: nextId++, result: {} } });
    lines.push({ dir: "in", msg: { method: "initialized" } });
  }
  const start = nextId++;
  lines.push({ dir: "in", msg: { id: start, method: "thread/start", params: { cwd: settings.cwd, ...(dynamicTools?.length ? { dynamicTools } : {}) } } });
  lines.push({ dir: "out", msg: { id: start, result: { thread: { id: threadId }, model: settings.model } } });
  for (const turn of history.wireTurns()) {
    const user = turn.items.find((item) => item.type === "userMessage");
    if (!user) continue;
    const id = nextId++;
    lines.push({ dir: "in", msg: { id, method: "turn/start", params: { threadId, input: user.content } } });
    lines.push({ dir: "out", msg: { id, result: { turn: { id: turn.id } } } });
    lines.push({ dir: "out", msg: { method: "turn/started", params: { threadId, turn: { id: turn.id } } } });
    for (const item of turn.items) {
      if (item.type === "userMessage") continue;
      if (item.type === "commandExecution" && item.status === "declined") {
        const asked = `approval-${nextId++}`;
        lines.push({ dir: "out", msg: { id: asked, method: "item/commandExecution/requestApproval", params: { threadId, turnId: turn.id, itemId: item.id } } });
        lines.push({ dir: "in", msg: { id: asked, result: { decision: "decline" } } });
      }
      if (item.type === "dynamicToolCall") {
        const asked = `tool-${nextId++}`;
        const { namespace, tool, arguments: args, contentItems, success } = item;
        lines.push({ dir: "out", msg: { id: asked, method: "item/tool/call", params: { threadId, turnId: turn.id, callId: item.id, namespace, tool, arguments: args } } });
        // No content: the client gave no answer (it failed the request).
        const answer = contentItems ? { result: { contentItems, success: success ?? false } } : { error: { code: -32603, message: "the client did not run the tool" } };
        lines.push({ dir: "in", msg: { id: asked, ...answer } });
      }
      if (item.type === "agentMessage") lines.push({ dir: "out", msg: { method: "item/agentMessage/delta", params: { threadId, turnId: turn.id, itemId: item.id, delta: item.text } } });
      lines.push({ dir: "out", msg: { method: "item/completed", params: { threadId, turnId: turn.id, item } } });
    }
    if (turn.status === "interrupted") lines.push({ dir: "in", msg: { id: nextId++, method: "turn/interrupt", params: { threadId, turnId: turn.id } } });
    lines.push({ dir: "out", msg: { method: "turn/completed", params: { threadId, turn: { id: turn.id, status: turn.status } } } });
  }
  return { lines, config };
}
