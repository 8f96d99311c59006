import { stat } from "node:fs/promises";
import {
  childEnvironment,
  commandGate,
  effectiveSettings,
  profileSandboxMode,
  loadOneOffCommand,
  loadPtyCommand,
  type CommandSandbox,
  type Host,
  type ExecProcess,
  type OneOffOptions,
  type OutputChunk,
} from "../../agent/index.js";
import type { Config } from "../../config/schema.js";
import type { CommandExecParams } from "../../protocol/commandExecMethods.js";
import { invalidRequest, rpcError } from "../../protocol/errors.js";
import { ErrorCode } from "../../protocol/jsonrpc.js";
import type { Clock } from "../../runtime/clock.js";
import type { CommandProcesses } from "../commandProcesses.js";
import type { HandlerTable } from "../dispatcher.js";
import { createNotification } from "../notifications.js";
import { requireExperimentalApi } from "./experimentalFields.js";

// Codex's defaults when the request sets neither a limit nor its `disable…` flag.
const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_OUTPUT_BYTES_CAP = 1024 * 1024;

/** What `command/exec` needs from the server. */
export interface CommandExecDeps {
  /** The current config (`configStore.current`), read at each command. */
  readonly config: () => Config;
  /** Starts the command, sandboxed as its policy says. */
  readonly sandbox: CommandSandbox;
  /** Where the server runs: its cwd is the default cwd and the workspace a sandbox policy protects; its environment is the commands'. */
  readonly host: Host;
  readonly clock: Clock;
  readonly processes: CommandProcesses;
}

type CommandExecHandlers = Pick<HandlerTable, "command/exec" | "command/exec/write" | "command/exec/terminate" | "command/exec/resize">;

/**
 * `command/exec` and its follow-ups: a command outside any turn, sandboxed like a turn's commands
 * (bubblewrap for read-only and workspace-write, never unsandboxed when bubblewrap cannot start),
 * answered when it exits; output buffered or streamed to the requesting connection only.
 */
export function commandExecHandlers(deps: CommandExecDeps): CommandExecHandlers {
  return {
    "command/exec": async (params, context) => {
      const { connection } = context;
      requireExperimentalApi(context, "command/exec.permissionProfile", params.permissionProfile);
      if (params.command.length === 0) throw invalidRequest("command must not be empty");
      const processId = params.processId ?? null;
      // As in Codex, a terminal implies streaming both ways.
      const streamOutput = (params.tty || params.streamStdoutStderr) ?? false;
      if (processId === null && (streamOutput || params.streamStdin || params.tty)) {
        throw invalidRequest("command/exec tty or streaming requires a client-supplied processId");
      }
      const onOutput = streamOutput
        ? (chunk: OutputChunk) =>
            connection.notify(
              createNotification(deps.clock, "command/exec/outputDelta", {
                processId: processId!,
                stream: chunk.stream,
                deltaBase64: chunk.bytes.toString("base64"),
                capReached: chunk.capReached,
              }),
            )
        : null;
      const command = await deps.processes.start(connection, processId, () => launch(deps, params, onOutput));
      const result = await command.finished;
      if (result.spawnError) throw rpcError(ErrorCode.InternalError, `failed to spawn command: ${result.spawnError}`);
      return { exitCode: result.exitCode, stdout: result.stdout, stderr: result.stderr };
    },
    "command/exec/write": async (params, { connection }) => {
      const command = await deps.processes.get(connection, params.processId);
      if (!command.acceptsStdin) throw invalidRequest("stdin streaming is not enabled for this command/exec (start it with streamStdin: true)");
      const bytes = Buffer.from(params.deltaBase64 ?? "", "base64");
      if (bytes.length > 0 && command.stdinClosed) throw invalidRequest("stdin is already closed");
      command.write(bytes);
      if (params.closeStdin) command.closeStdin();
      return {};
    },
    "command/exec/terminate": async (params, { connection }) => {
      (await deps.processes.get(connection, params.processId)).terminate();
      return {};
    },
    "command/exec/resize": async (params, { connection }) => {
      const command = await deps.processes.get(connection, params.processId);
      if (!("resize" in command)) throw invalidRequest(`command/exec ${JSON.stringify(params.processId)} has no terminal to resize (start it with tty: true)`);
      command.resize(params.size.cols, params.size.rows);
      return {};
    },
  };
}

/**
 * Starts the command: in its cwd (relative to the server's), wrapped for its sandbox policy (the
 * request's, else the configured one), with the configured environment plus the request's overrides.
 */
async function launch(deps: CommandExecDeps, params: CommandExecParams, onOutput: OneOffOptions["onOutput"]): Promise<ExecProcess> {
  const config = deps.config();
  const { host } = deps;
  const { cwd, sandbox } = effectiveSettings(config, null, { cwd: params.cwd, sandboxPolicy: params.sandboxPolicy, sandboxMode: profileSandboxMode(params.permissionProfile) }, host);
  if (!(await stat(cwd).catch(() => null))?.isDirectory()) throw invalidRequest(`command/exec cwd is not a directory: ${cwd}`);
  const prepared = await deps.sandbox.prepare(params.command, {
    policy: sandbox,
    // As in Codex, the policy's workspace is the server's cwd, not the command's.
    workspace: host.cwd,
    cwd,
    env: host.env,
    bwrapPath: config.bwrap_path,
  });
  if ("problem" in prepared) throw rpcError(ErrorCode.InternalError, prepared.problem);
  const options: OneOffOptions = {
    cwd,
    env: withOverrides(childEnvironment(config.shell_environment_policy, host.env), params.env),
    pipeStdin: (params.tty || params.streamStdin) ?? false,
    outputBytesCap: params.disableOutputCap ? null : (params.outputBytesCap ?? DEFAULT_OUTPUT_BYTES_CAP),
    timeoutMs: params.disableTimeout ? null : (params.timeoutMs ?? DEFAULT_TIMEOUT_MS),
    onOutput,
  };
  // Command support (execa, node-pty) loads with the first command that needs it, not at start-up.
  if (params.tty) {
    const { PtyCommand } = await loadPtyCommand();
    return new PtyCommand(await commandGate.startPermit(), prepared.launcher, options, params.size ?? null);
  }
  const { OneOffCommand } = await loadOneOffCommand();
  return new OneOffCommand(await commandGate.startPermit(), prepared.launcher, options);
}

/** The environment with the request's overrides applied: a value sets a variable, null unsets it. */
function withOverrides(base: Record<string, string>, overrides: Record<string, string | null> | null | undefined): Record<string, string> {
  const env = { ...base };
  for (const [name, value] of Object.entries(overrides ?? {})) {
    if (value === null) delete env[name];
    else env[name] = value;
  }
  return env;
}
