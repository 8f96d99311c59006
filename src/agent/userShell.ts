/**
 * `thread/shellCommand`: the user's own shell command (the TUI's `!cmd`), run as a turn of its own
 * with no model call, as Codex runs it. It runs in the thread's cwd through the login shell,
 * unsandboxed (the user typed it; nobody is asked), shown as a `commandExecution` item with
 * `source: "userShell"`, and what it printed joins the model-visible history so the next turn
 * knows what the user ran.
 */
import type { ThreadItem } from "../protocol/items.js";
import type { ConversationItem } from "./conversation.js";
import { shellOutputText, wholeOutput } from "./exec/commandOutput.js";
import { displayCommand } from "./exec/shellWords.js";
import type { ToolContext } from "./tools/tool.js";
import { directLauncher } from "./boundary/launch.js";

/** Codex's default limit for a user shell command: one hour. */
const DEFAULT_TIMEOUT_MS = 60 * 60 * 1000;
const MAX_OUTPUT_TOKENS = 10_000;

/** What to run. */
export interface UserShellCommand {
  readonly command: string;
  readonly timeoutMs: number | null;
}

/** Runs the command to its end (or its timeout) and records it; resolves with the history items to add. */
export async function runUserShellCommand(request: UserShellCommand, context: ToolContext, itemId: string): Promise<ConversationItem[]> {
  const argv = ["/bin/bash", "-lc", request.command];
  const base = {
    type: "commandExecution" as const,
    id: itemId,
    pluginId: null,
    scriptPath: null,
    command: displayCommand(argv),
    cwd: context.cwd,
    processId: null,
    source: "userShell" as const,
    commandActions: [{ type: "unknown" as const, command: request.command }],
  };
  await context.emit({ type: "itemStarted", item: { ...base, status: "inProgress", aggregatedOutput: null, exitCode: null, durationMs: null } });
  const { clock, loginShell, config, env } = context.environment;
  const shell = await loginShell.command(argv, config, env);
  const started = clock.nowMs();
  // The user's own command runs as Codex runs it: outside the sandbox.
  const session = await context.sessions.start(
    directLauncher(shell.argv),
    {
      cwd: context.cwd,
      env: shell.env,
      onOutput: (delta) =>
        void context.emit({ type: "notify", method: "item/commandExecution/outputDelta", params: { threadId: context.threadId, turnId: context.turnId, itemId, delta } }),
    },
    { turnId: context.turnId, itemId, command: request.command, cwd: context.cwd, signal: context.signal, detach: async () => undefined },
  );
  const timeoutMs = request.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const exited = await session.waitExit(timeoutMs, context.signal);
  if (!exited) session.kill();
  const exit = await session.exited;
  context.sessions.remove(session.id);
  const exitCode = exited ? exit.exitCode : 124;
  const durationMs = clock.nowMs() - started;
  const item: ThreadItem = { ...base, processId: session.pid, status: exitCode === 0 ? "completed" : "failed", aggregatedOutput: session.aggregatedOutput, exitCode, durationMs };
  await context.emit({ type: "itemCompleted", item });
  context.signal.throwIfAborted();
  const result = shellOutputText({ wallMs: durationMs, exitCode, output: wholeOutput(session.aggregatedOutput + (exited ? "" : `\ncommand timed out after ${timeoutMs} ms`)), maxTokens: MAX_OUTPUT_TOKENS });
  const text = `<user_shell_command>\n<command>\n${request.command}\n</command>\n<result>\n${result}\n</result>\n</user_shell_command>`;
  return [{ type: "message", role: "user", content: [{ type: "input_text", text }] }];
}
