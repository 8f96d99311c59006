import { constants } from "node:fs";
import { access } from "node:fs/promises";
import path from "node:path";
import type { ThreadItem } from "../../protocol/items.js";
import { TurnCancelled } from "../approvals.js";
import { heredocPatch } from "../patch/patchParser.js";
import { applyPatch } from "../tools/applyPatch.js";
import type { ToolContext } from "../tools/tool.js";
import { parseCommandActions } from "./commandActions.js";
import { execOutputText, shellOutputText } from "./commandOutput.js";
import { directLauncher } from "../boundary/launch.js";
import { displayCommand } from "./shellWords.js";
import { proposedPrefix } from "../safety/proposedPrefix.js";
import { decideCommand } from "../safety/decision.js";
import { writableRoots } from "../boundary/writableRoots.js";
import { parseScript } from "../safety/shellParser.js";

/** A command the model asked for, from any of the shell tools. */
export interface CommandRequest {
  readonly callId: string;
  readonly argv: readonly string[];
  /** The shell script when the command is `bash -lc <script>`; it is what policies and parsing look at. */
  readonly script: string;
  readonly workdir: string;
  readonly escalate: boolean;
  readonly justification: string | null;
  /** exec_command: return after this long and keep the process as a session. */
  readonly yieldMs: number | null;
  /** shell / shell_command: kill the process after this long. */
  readonly timeoutMs: number | null;
  readonly maxOutputTokens: number;
}

const DECLINED = 'exec_command failed: CreateProcess { message: "Rejected(\\"rejected by user\\")" }';

/**
 * Runs a command as a `commandExecution` item: decides by policy whether to ask, asks, runs it
 * (sandboxed with bubblewrap unless full access or approved escalation; never unsandboxed when the
 * sandbox cannot start), streams its output, and returns the text for the model.
 */
export async function runCommand(request: CommandRequest, context: ToolContext): Promise<string> {
  const patch = heredocPatch(request.script);
  if (patch) return applyPatch(patch.patch, request.callId, path.resolve(request.workdir, patch.cd ?? "."), context);

  const command = displayCommand(request.argv);
  const base = {
    type: "commandExecution" as const,
    id: request.callId,
    pluginId: null,
    scriptPath: null,
    command,
    cwd: request.workdir,
    processId: null,
    source: "agent" as const,
    commandActions: parseCommandActions(request.script),
  };
  // The item completes once: when the command ends, or (still running) when its turn ends first.
  let finished = false;
  const finish = async (fields: Partial<Extract<ThreadItem, { type: "commandExecution" }>> & { status: "completed" | "failed" | "declined" | "inProgress" }) => {
    if (finished) return;
    finished = true;
    await context.emit({ type: "itemCompleted", item: { ...base, aggregatedOutput: null, exitCode: null, durationMs: null, ...fields } });
  };

  const parsed = await parseScript(request.script);
  // An escalated yes covers only escalated runs of the command, a sandboxed yes only sandboxed ones.
  const sessionKey = `command:${request.escalate ? "escalated:" : ""}${command}`;
  // How the command will be spawned decides where its programs are found: a login shell's profile sets PATH itself.
  const shell = await context.environment.loginShell.command(request.argv, context.environment.config, context.environment.env);
  const [spawned, flag] = shell.argv;
  const decision = decideCommand({
    policy: context.settings.approvalPolicy,
    sandbox: context.settings.sandbox,
    argv: request.argv,
    parsed,
    escalate: request.escalate,
    rules: context.environment.config.approval_rules ?? [],
    learned: context.sessionApprovals.rules(request.escalate),
    acceptedForSession: context.sessionApprovals.has(sessionKey),
    searchPath: flag === "-lc" && path.basename(spawned ?? "") === "bash" ? null : (shell.env.PATH ?? null),
    // The model may have written there in any turn under workspace-write, whatever this turn's sandbox.
    modelWritable: writableRoots({ type: "workspaceWrite" }, context.cwd, context.environment.home, context.environment.env)!.roots,
    cwd: request.workdir,
  });
  // Started once: before an approval request when one is sent (the asker calls it), else now.
  let announced = false;
  const start = async () => {
    if (announced) return;
    announced = true;
    await context.emit({ type: "itemStarted", item: { ...base, status: "inProgress", aggregatedOutput: null, exitCode: null, durationMs: null } });
  };
  if (decision.kind !== "ask") await start();
  if (decision.kind === "refuse") {
    await finish({ status: "declined" });
    return `exec_command rejected: ${decision.message}`;
  }
  if (decision.kind === "ask") {
    const answer = await context.ask({
      kind: "command",
      itemId: request.callId,
      command,
      cwd: request.workdir,
      commandActions: base.commandActions,
      reason: request.justification,
      proposedAmendment: proposedPrefix(request.argv, parsed),
      announce: start,
    });
    await start();
    if (answer === "acceptForSession") context.sessionApprovals.add(sessionKey);
    if (typeof answer === "object" && "deniedByReviewer" in answer) {
      await finish({ status: "declined" });
      return answer.deniedByReviewer;
    }
    if (typeof answer === "object") context.sessionApprovals.allowPrefix(answer.allowPrefix, request.escalate);
    if (answer === "decline" || answer === "cancel") {
      await finish({ status: "declined" });
      if (answer === "cancel") throw new TurnCancelled();
      return DECLINED;
    }
    if (answer === "failed") {
      await finish({ status: "failed" });
      return "exec_command failed: the approval request got no valid answer, so the command was not run.";
    }
  }
  context.signal.throwIfAborted();

  const unusable = await workdirProblem(request.workdir);
  if (unusable) {
    await finish({ status: "failed", aggregatedOutput: unusable, exitCode: -1 });
    return `exec_command failed: ${unusable}`;
  }
  context.signal.throwIfAborted();
  let launcher = directLauncher(shell.argv);
  if (decision.sandboxed) {
    // The writable roots come from the thread's cwd and settings, never from the model's workdir.
    const prepared = await context.environment.sandbox.prepare(shell.argv, {
      policy: context.settings.sandbox,
      workspace: context.cwd,
      cwd: request.workdir,
      env: context.environment.env,
      bwrapPath: context.environment.config.bwrap_path,
    });
    if ("problem" in prepared) {
      // Clients hear once that the sandbox cannot run here; a workspace it cannot hold is the item's own failure.
      if (prepared.unavailable) context.environment.warnOnce("The command sandbox is unavailable", prepared.problem);
      await finish({ status: "failed", aggregatedOutput: prepared.problem, exitCode: -1 });
      return `exec_command failed: ${prepared.problem}`;
    }
    launcher = prepared.launcher;
  }

  const started = context.environment.clock.nowMs();
  const sendOutput = (delta: string) =>
    void context.emit({
      type: "notify",
      method: "item/commandExecution/outputDelta",
      params: { threadId: context.threadId, turnId: context.turnId, itemId: request.callId, delta },
    });
  // Steady output (deterministic mode): one delta at exit, not as the OS happened to split the pipe's reads.
  let held = "";
  const steady = context.environment.steadyOutput === true;
  const session = await context.sessions.start(
    launcher,
    {
      cwd: request.workdir,
      env: shell.env,
      onOutput: (delta) => (steady ? void (held += delta) : sendOutput(delta)),
    },
    {
      turnId: context.turnId,
      itemId: request.callId,
      command: request.script,
      cwd: request.workdir,
      signal: context.signal,
      // Its turn is over and it still runs (a background terminal): the item ends in progress.
      detach: () => finish({ status: "inProgress", processId: session.pid, aggregatedOutput: session.aggregatedOutput }),
    },
  );
  // The item completes when the process exits, whether the model is still waiting on it or not.
  const completion = session.exited.then((exit) => {
    if (held) sendOutput(held);
    return finish({
      status: exit.exitCode === 0 ? "completed" : "failed",
      processId: session.pid,
      aggregatedOutput: session.aggregatedOutput,
      exitCode: exit.exitCode,
      durationMs: context.environment.clock.nowMs() - started,
    });
  });

  if (request.yieldMs !== null) {
    const exited = await session.waitExit(request.yieldMs, context.signal);
    context.signal.throwIfAborted();
    if (exited) {
      await completion;
      context.sessions.remove(session.id);
    }
    return execOutputText({
      wallMs: context.environment.clock.nowMs() - started,
      exitCode: exited ? session.exitStatus!.exitCode : null,
      sessionId: exited ? null : session.id,
      output: session.takeUnread(),
      maxTokens: request.maxOutputTokens,
    });
  }
  const exited = await session.waitExit(request.timeoutMs ?? Number.MAX_SAFE_INTEGER, context.signal);
  context.signal.throwIfAborted();
  if (!exited) session.kill();
  const exit = await session.exited;
  await completion;
  context.sessions.remove(session.id);
  const unread = session.takeUnread();
  const timedOut = exited ? "" : `\ncommand timed out after ${request.timeoutMs} ms`;
  const output = { text: unread.text + timedOut, chars: unread.chars + timedOut.length };
  return shellOutputText({ wallMs: context.environment.clock.nowMs() - started, exitCode: exited ? exit.exitCode : 124, output, maxTokens: request.maxOutputTokens });
}

/** Why a command cannot start in `workdir` (missing, not a directory, or not ours to enter), or null. */
async function workdirProblem(workdir: string): Promise<string | null> {
  try {
    await access(workdir, constants.X_OK);
    return null;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === "ENOENT" ? "does not exist" : code === "ENOTDIR" ? "is not a directory" : `cannot be entered (${code})`;
    return `the working directory ${workdir} ${why}; the command was not run.`;
  }
}
