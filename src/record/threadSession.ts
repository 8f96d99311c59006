import type { ThreadHistory } from "../threads/threadHistory.js";
import type { AuditLine } from "./sessionScenario.js";

/** `thread/start`'s sandbox policy type → the `sandbox_mode` that gives it. */
export const SANDBOX_MODES: Readonly<Record<string, string>> = { readOnly: "read-only", workspaceWrite: "workspace-write", dangerFullAccess: "danger-full-access" };

/**
 * A stored thread as the messages of a session that made it (`record --from-thread`): the client
 * starts the thread in its cwd and each turn with its user message, waits for it to end (or
 * interrupts it), and declines the commands that were declined. Approvals are asked as `on-request`
 * asks them: a declined command was asked for (and is escalated in the rebuilt call), others were
 * not, since the thread does not keep which were.
 */
export function sessionFromThread(history: ThreadHistory): { lines: AuditLine[]; config: Record<string, string> } {
  const settings = history.settings;
  const threadId = history.identity.id;
  const lines: AuditLine[] = [];
  const config: Record<string, string> = { model: settings.model, approval_policy: "on-request" };
  const sandbox = SANDBOX_MODES[settings.sandbox.type];
  if (sandbox) config.sandbox_mode = sandbox;
  lines.push({ dir: "in", msg: { id: 1, method: "thread/start", params: { cwd: settings.cwd } } });
  lines.push({ dir: "out", msg: { id: 1, result: { thread: { id: threadId }, model: settings.model } } });
  let nextId = 2;
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
      if (item.type === "agentMessage") lines.push({ dir: "out", msg: { method: "item/agentMessage/delta", params: { threadId, turnId: turn.id, itemId: item.id, delta: item.text } } });
      lines.push({ dir: "out", msg: { method: "item/completed", params: { threadId, turnId: turn.id, item } } });
    }
    if (turn.status === "interrupted") lines.push({ dir: "in", msg: { id: nextId++, method: "turn/interrupt", params: { threadId, turnId: turn.id } } });
    lines.push({ dir: "out", msg: { method: "turn/completed", params: { threadId, turn: { id: turn.id, status: turn.status } } } });
  }
  return { lines, config };
}
