import { execa, type ResultPromise } from "../../vendor/execa.js";
import type { Launch, Launcher } from "../boundary/launch.js";
import type { StartPermit } from "./commandGate.js";
import { COMMAND_MARKER, killMarked, newCommandMarker } from "./commandMarker.js";

/** The id each spawned command carries in its environment (see commandMarker.ts). */
const markers = new WeakMap<ResultPromise, string>();

/** How a command ended. */
export interface ProcessExit {
  /** Exit code; -1 when a signal ended it or it could not start. */
  readonly exitCode: number;
  /** Why it could not start, when it could not. */
  readonly spawnError: string | null;
}

/** How a command's stdin is wired: a pipe the server writes to, or nothing (immediate EOF). */
export type StdinMode = "pipe" | "ignore";

/**
 * Starts a command (through `launcher`) as the leader of a new process group with exactly `env`
 * (plus its command id), its output as raw byte streams, so that {@link killProcessGroup} can end
 * it and everything it started. It counts as running (see commandGate.ts) until it exited.
 */
export function spawnProcessGroup(
  permit: StartPermit,
  launcher: Launcher,
  options: { readonly cwd: string; readonly env: Record<string, string>; readonly stdin: StdinMode },
): ResultPromise {
  const marker = newCommandMarker();
  const child = launched(permit, launcher, { ...options.env, [COMMAND_MARKER]: marker }, (launch) => execa(launch.argv[0]!, launch.argv.slice(1), {
    cwd: options.cwd,
    env: launch.env,
    extendEnv: false,
    detached: true,
    stdin: options.stdin,
    stdout: "pipe",
    stderr: "pipe",
    buffer: false,
    reject: false,
    // The server kills its commands itself (turn end, connection close, shutdown).
    cleanup: false,
  }));
  // Writing to a command that has exited is not an error worth crashing over.
  child.stdin?.on("error", () => undefined);
  markers.set(child, marker);
  return child;
}

/**
 * Starts a command (through `launcher`) on its own: a process group of its own, no pipe to us
 * (stdout to `outputFile`, stderr and stdin closed), not waited for at exit.
 */
export function spawnDetached(
  permit: StartPermit,
  launcher: Launcher,
  options: { readonly cwd: string; readonly env: Record<string, string>; readonly outputFile: string },
): ResultPromise {
  const child = launched(permit, launcher, options.env, (launch) => execa(launch.argv[0]!, launch.argv.slice(1), {
    cwd: options.cwd,
    env: launch.env,
    extendEnv: false,
    detached: true,
    stdin: "ignore",
    stdout: { file: options.outputFile },
    stderr: "ignore",
    buffer: false,
    reject: false,
    cleanup: false,
  }));
  child.unref();
  return child;
}

/**
 * Launches and spawns under `permit`: the child counts as running until it exited (not at all if
 * it could not be spawned), and what the launch handed it (files, mount points) is cleaned up then.
 */
function launched(permit: StartPermit, launcher: Launcher, env: Record<string, string>, spawn: (launch: Launch) => ResultPromise): ResultPromise {
  let launch: Launch | undefined;
  let child: ResultPromise;
  try {
    launch = launcher(env);
    child = spawn(launch);
  } catch (error) {
    launch?.exited();
    permit.release();
    throw error;
  }
  child.then(launch.exited, launch.exited);
  permit.started(processExit(child));
  return child;
}

/**
 * SIGKILLs the process group `child` leads (while it runs: an exited leader's pid may be reused),
 * then every process that carries its command id: what it left running, in its group or not.
 */
export function killProcessGroup(child: ResultPromise): void {
  if (child.pid === undefined) return;
  if (child.exitCode === null && child.signalCode === null) {
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {
      child.kill("SIGKILL");
    }
  }
  const marker = markers.get(child);
  if (marker) killMarked(marker);
}

/** Resolves how `child` ended, once it exited and its output closed; never rejects. */
export function processExit(child: ResultPromise): Promise<ProcessExit> {
  return child.then(
    (result) => {
      const exitCode = typeof result.exitCode === "number" ? result.exitCode : -1;
      const spawnError = result.failed && result.exitCode === undefined && !result.signal ? (result.shortMessage ?? "could not start") : null;
      return { exitCode, spawnError };
    },
    (error: unknown) => ({ exitCode: -1, spawnError: String(error) }),
  );
}
