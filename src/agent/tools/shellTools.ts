import path from "node:path";
import * as z from "zod";
import { lazySchema } from "../../protocol/lazySchema.js";
import type { ToolCall } from "../conversation.js";
import { execOutputText } from "../exec/commandOutput.js";
import { runCommand, type CommandRequest } from "../exec/runCommand.js";
import { displayCommand } from "../exec/shellWords.js";
import { parseArguments } from "./arguments.js";
import type { Tool, ToolContext } from "./tool.js";

// Codex's unified-exec defaults and bounds.
const DEFAULT_YIELD_MS = 10_000;
const MIN_YIELD_MS = 250;
const MAX_YIELD_MS = 30_000;
const DEFAULT_POLL_MS = 250;
const DEFAULT_MAX_OUTPUT_TOKENS = 10_000;
// Codex's default timeout for the older shell tools.
const DEFAULT_SHELL_TIMEOUT_MS = 10_000;

const Escalation = {
  sandbox_permissions: z.enum(["use_default", "require_escalated"]).nullable().optional(),
  with_escalated_permissions: z.boolean().nullable().optional(),
  justification: z.string().nullable().optional(),
};

const ExecArguments = lazySchema(() => z.object({
  cmd: z.string(),
  workdir: z.string().nullable().optional(),
  yield_time_ms: z.number().nullable().optional(),
  max_output_tokens: z.number().int().nullable().optional(),
  ...Escalation,
}));

const ShellArguments = lazySchema(() => z.object({
  command: z.array(z.string()).min(1),
  workdir: z.string().nullable().optional(),
  timeout_ms: z.number().int().positive().nullable().optional(),
  ...Escalation,
}));

const ShellCommandArguments = lazySchema(() => z.object({
  command: z.string(),
  workdir: z.string().nullable().optional(),
  timeout_ms: z.number().int().positive().nullable().optional(),
  ...Escalation,
}));

const WriteStdinArguments = lazySchema(() => z.object({
  session_id: z.number().int(),
  chars: z.string().nullable().optional(),
  yield_time_ms: z.number().nullable().optional(),
  max_output_tokens: z.number().int().nullable().optional(),
}));

const ESCALATION_SCHEMA = {
  sandbox_permissions: {
    type: "string",
    enum: ["use_default", "require_escalated"],
    description: "Set to require_escalated to run outside the sandbox; the user is asked to approve, with your justification.",
  },
  justification: { type: "string", description: "Why the command needs to run outside the sandbox, shown to the user." },
};

/** Arguments every shell tool shares. */
interface CommonArguments {
  readonly workdir?: string | null;
  readonly sandbox_permissions?: string | null;
  readonly with_escalated_permissions?: boolean | null;
  readonly justification?: string | null;
}

/** Runs a shell tool's command: the common arguments plus how to run and wait for it. */
function run(
  call: ToolCall,
  context: ToolContext,
  args: CommonArguments,
  how: Pick<CommandRequest, "argv" | "script" | "yieldMs" | "timeoutMs" | "maxOutputTokens">,
): Promise<string> {
  return runCommand(
    {
      ...how,
      callId: call.callId,
      workdir: path.resolve(context.cwd, args.workdir ?? "."),
      escalate: args.sandbox_permissions === "require_escalated" || args.with_escalated_permissions === true,
      justification: args.justification ?? null,
    },
    context,
  );
}

/** `exec_command`: a shell string run with `bash -lc`; still running after `yield_time_ms`, it becomes a session. */
export const execCommandTool: Tool = {
  spec: {
    kind: "function",
    name: "exec_command",
    description:
      "Runs a shell command (bash -lc) in the working directory and returns its output. A command still running after " +
      "yield_time_ms keeps running as a session you can poll or write to with write_stdin.",
    parameters: {
      type: "object",
      properties: {
        cmd: { type: "string", description: "The shell command to run." },
        workdir: { type: "string", description: "Directory to run in (default: the turn's working directory)." },
        yield_time_ms: { type: "number", description: "How long to wait for output before returning (250-30000, default 10000)." },
        max_output_tokens: { type: "number", description: "Most output tokens to return (default 10000)." },
        ...ESCALATION_SCHEMA,
      },
      required: ["cmd"],
      additionalProperties: false,
    },
  },
  async run(call: ToolCall, context: ToolContext): Promise<string> {
    const parsed = parseArguments(call, ExecArguments);
    if (!parsed.ok) return parsed.message;
    const args = parsed.value;
    return run(call, context, args, {
      argv: ["/bin/bash", "-lc", args.cmd],
      script: args.cmd,
      yieldMs: Math.min(MAX_YIELD_MS, Math.max(MIN_YIELD_MS, args.yield_time_ms ?? DEFAULT_YIELD_MS)),
      timeoutMs: null,
      maxOutputTokens: args.max_output_tokens ?? DEFAULT_MAX_OUTPUT_TOKENS,
    });
  },
};

/** `shell` (argv) from older Codex models: run to completion, with a timeout. */
export const shellTool: Tool = {
  spec: {
    kind: "function",
    name: "shell",
    description: "Runs a command given as an argv array and returns its output.",
    parameters: {
      type: "object",
      properties: {
        command: { type: "array", items: { type: "string" } },
        workdir: { type: "string" },
        timeout_ms: { type: "number" },
        ...ESCALATION_SCHEMA,
      },
      required: ["command"],
      additionalProperties: false,
    },
  },
  async run(call: ToolCall, context: ToolContext): Promise<string> {
    const parsed = parseArguments(call, ShellArguments);
    if (!parsed.ok) return parsed.message;
    const args = parsed.value;
    const isShellScript = args.command.length === 3 && /(^|\/)(ba)?sh$/.test(args.command[0]!) && args.command[1]!.startsWith("-") && args.command[1]!.includes("c");
    return run(call, context, args, {
      argv: args.command,
      script: isShellScript ? args.command[2]! : displayCommand(args.command),
      yieldMs: null,
      timeoutMs: args.timeout_ms ?? DEFAULT_SHELL_TIMEOUT_MS,
      maxOutputTokens: DEFAULT_MAX_OUTPUT_TOKENS,
    });
  },
};

/** `shell_command` (a shell string) from older Codex models: run to completion, with a timeout. */
export const shellCommandTool: Tool = {
  spec: {
    kind: "function",
    name: "shell_command",
    description: "Runs a shell command string and returns its output.",
    parameters: {
      type: "object",
      properties: { command: { type: "string" }, workdir: { type: "string" }, timeout_ms: { type: "number" }, ...ESCALATION_SCHEMA },
      required: ["command"],
      additionalProperties: false,
    },
  },
  async run(call: ToolCall, context: ToolContext): Promise<string> {
    const parsed = parseArguments(call, ShellCommandArguments);
    if (!parsed.ok) return parsed.message;
    const args = parsed.value;
    return run(call, context, args, {
      argv: ["/bin/bash", "-lc", args.command],
      script: args.command,
      yieldMs: null,
      timeoutMs: args.timeout_ms ?? DEFAULT_SHELL_TIMEOUT_MS,
      maxOutputTokens: DEFAULT_MAX_OUTPUT_TOKENS,
    });
  },
};

/** `write_stdin`: writes to a running `exec_command` session and returns what it printed since the last poll. */
export const writeStdinTool: Tool = {
  spec: {
    kind: "function",
    name: "write_stdin",
    description: "Writes characters to a running exec_command session (empty to just poll) and returns its new output.",
    parameters: {
      type: "object",
      properties: {
        session_id: { type: "number", description: "The session ID exec_command returned." },
        chars: { type: "string", description: "Characters to write (may be empty)." },
        yield_time_ms: { type: "number" },
        max_output_tokens: { type: "number" },
      },
      required: ["session_id"],
      additionalProperties: false,
    },
  },
  async run(call: ToolCall, context: ToolContext): Promise<string> {
    const parsed = parseArguments(call, WriteStdinArguments);
    if (!parsed.ok) return parsed.message;
    const args = parsed.value;
    const session = context.sessions.get(args.session_id);
    if (!session) return `write_stdin failed: Unknown session id ${args.session_id}`;
    const started = context.environment.clock.nowMs();
    if (args.chars) session.write(args.chars);
    const exited = await session.waitExit(Math.min(MAX_YIELD_MS, Math.max(MIN_YIELD_MS, args.yield_time_ms ?? DEFAULT_POLL_MS)), context.signal);
    context.signal.throwIfAborted();
    if (exited) context.sessions.remove(session.id);
    return execOutputText({
      wallMs: context.environment.clock.nowMs() - started,
      exitCode: exited ? session.exitStatus!.exitCode : null,
      sessionId: session.id,
      output: session.takeUnread(),
      maxTokens: args.max_output_tokens ?? DEFAULT_MAX_OUTPUT_TOKENS,
    });
  },
};
