import { execa, type ResultPromise } from "../../vendor/execa.js";
import type { Launch, Launcher } from "../boundary/launch.js";
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
 * it and everything it started.
 */
export function spawnProcessGroup(
  launcher: Launcher,
  options: { readonly cwd: string; readonly env: Record<string, string>; readonly stdin: StdinMode },
): ResultPromise {
  const marker = newCommandMarker();
  const launch = launcher({ ...options.env, [COMMAND_MARKER]: marker });
  const child = execa(launch.argv[0]!, launch.argv.slice(1), {
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
  });
  // Writing to a command that has exited is not an error worth crashing over.
  child.stdin?.on("error", () => undefined);
  markers.set(child, marker);
  afterExit(child, launch);
  return child;
}

/**
 * Starts a command (through `launcher`) on its own: a process group of its own, no pipe to us
 * (stdout to `outputFile`, stderr and stdin closed), not waited for at exit.
 */
export function spawnDetached(launcher: Launcher, options: { readonly cwd: string; readonly env: Record<string, string>; readonly outputFile: string }): ResultPromise {
  const launch = launcher(options.env);
  const child = execa(launch.argv[0]!, launch.argv.slice(1), {
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
  });
  child.unref();
  afterExit(child, launch);
  return child;
}

/** Cleans up what the launch handed the command (its files, its mount points) once it exited or failed to start. */
function afterExit(child: ResultPromise, launch: Launch): void {
  child.then(launch.exited, launch.exited);
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
