import { createHash, randomUUID } from "node:crypto";
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import type { ResultPromise } from "execa";
import type { Config } from "../../config/schema.js";
import { childEnvironment } from "./childEnvironment.js";

/** How long the login profile may take to run once before commands fall back to running it themselves. */
const CAPTURE_TIMEOUT_MS = 10_000;
/** Variables a shell sets for itself; restoring the capture's values would be wrong in another shell. */
const SHELL_OWN = new Set(["PWD", "OLDPWD", "SHLVL", "_"]);
/** Printed before the environment, so whatever the profile itself prints to stdout is skipped. */
const ENV_MARKER = "\0agent-app-server:env\0";
/**
 * Writes the snapshot file and prints the environment. BASH_ENV is unset first, so a function the
 * shell cannot parse back never leaves it set for the command's child shells; shell options come
 * before the functions that may need them (extglob patterns); `builtin` so that no function of the
 * profile's can stand in for these commands. The read-only options a login shell reports are left out.
 */
const CAPTURE_SCRIPT = [
  `builtin printf 'unset BASH_ENV\\n' > "$1"`,
  `builtin shopt -p | while builtin read -r line; do case "$line" in *login_shell|*restricted_shell) ;; *) builtin printf '%s\\n' "$line" ;; esac; done >> "$1"`,
  `builtin declare -f >> "$1"`,
  `builtin printf '${ENV_MARKER.replaceAll("\0", "\\0")}'`,
  "exec env -0",
].join(" && ");

/** What the login profile adds to a given environment: variables set and removed, options and functions. */
interface Snapshot {
  readonly set: Readonly<Record<string, string>>;
  readonly unset: readonly string[];
  /** The profile's shell options and functions, sourced through BASH_ENV. */
  readonly file: string;
}

/** The argv and environment to spawn a command with. */
export interface ShellCommand {
  readonly argv: readonly string[];
  readonly env: Record<string, string>;
}

/**
 * Runs the user's login profile once per shell and environment instead of once per command.
 * Commands come as `bash -lc <script>`; sourcing the profile (pyenv, nvm, conda…) can take most of
 * a second each time, longer than a short `yield_time_ms`. Like Codex's shell snapshots, the
 * profile runs once in the background; each command then runs as `bash -c <script>` with the
 * variables the profile set and, through BASH_ENV, the options and functions it defined. Aliases
 * are left out, as `bash -lc` does not expand them either. If the profile cannot be captured,
 * commands keep `-lc`.
 */
export class LoginShell {
  private readonly snapshots = new Map<string, Promise<Snapshot | null>>();
  private readonly files = new Set<string>();
  /** Captures still running, killed by {@link close} so none outlives the server. */
  private readonly running = new Set<ResultPromise>();
  /** Per instance, so two servers sharing a home never delete each other's snapshots. */
  private readonly instance = randomUUID();
  private closed = false;
  private swept = false;

  constructor(private readonly directory: string) {}

  /** Starts capturing the profile of `/bin/bash` for commands under `config` in the background (unless opted out). */
  async prepare(config: Config, serverEnv: NodeJS.ProcessEnv): Promise<void> {
    if (config.features?.shell_snapshot === false) return;
    await this.snapshotFor("/bin/bash", childEnvironment(config.shell_environment_policy, serverEnv));
  }

  /**
   * How to spawn `argv` under `config`: with the environment `shell_environment_policy` gives it,
   * and for a `bash -lc` command, as `bash -c` without the profile run (unless opted out). What the
   * profile exports passes the same policy.
   */
  async command(argv: readonly string[], config: Config, serverEnv: NodeJS.ProcessEnv): Promise<ShellCommand> {
    const policy = config.shell_environment_policy;
    const env = childEnvironment(policy, serverEnv);
    const [shell, flag, script] = argv;
    if (config.features?.shell_snapshot === false) return { argv, env };
    if (argv.length !== 3 || flag !== "-lc" || path.basename(shell!) !== "bash" || env.BASH_ENV !== undefined) return { argv, env };
    const snapshot = await this.snapshotFor(shell!, env);
    if (!snapshot) return { argv, env };
    const withProfile: Record<string, string> = { ...env, ...snapshot.set };
    for (const name of snapshot.unset) delete withProfile[name];
    return { argv: [shell!, "-c", script!], env: { ...childEnvironment(policy, withProfile), BASH_ENV: snapshot.file } };
  }

  /** Stops captures still running, waits for them, and deletes the snapshot files. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.running.size > 0) {
      const { killProcessGroup } = await import("./processGroup.js");
      for (const child of this.running) stopCapture(child, killProcessGroup);
    }
    await Promise.all(this.snapshots.values());
    for (const file of this.files) rmSync(file, { force: true });
    this.files.clear();
  }

  private snapshotFor(shell: string, env: Readonly<Record<string, string>>): Promise<Snapshot | null> {
    if (this.closed) return Promise.resolve(null);
    const key = fingerprint(shell, env);
    let snapshot = this.snapshots.get(key);
    if (!snapshot) {
      snapshot = this.capture(shell, env, path.join(this.directory, `${process.pid}-${this.instance}-${key.slice(0, 12)}.sh`));
      this.snapshots.set(key, snapshot);
    }
    return snapshot;
  }

  private async capture(shell: string, env: Readonly<Record<string, string>>, file: string): Promise<Snapshot | null> {
    try {
      mkdirSync(this.directory, { recursive: true });
      this.sweepOnce();
      this.files.add(file);
      const output = await run([shell, "-lc", CAPTURE_SCRIPT, "bash", file], env, this.running);
      const start = output?.lastIndexOf(ENV_MARKER) ?? -1;
      if (output === null || start === -1 || this.closed) return null;
      const after = new Map<string, string>();
      for (const entry of output.slice(start + ENV_MARKER.length).split("\0")) {
        const equals = entry.indexOf("=");
        if (equals > 0) after.set(entry.slice(0, equals), entry.slice(equals + 1));
      }
      if (after.has("BASH_ENV")) return null;
      const set: Record<string, string> = {};
      for (const [name, value] of after) if (!SHELL_OWN.has(name) && env[name] !== value) set[name] = value;
      const unset = Object.keys(env).filter((name) => !after.has(name) && !SHELL_OWN.has(name));
      return { set, unset, file };
    } catch {
      return null;
    }
  }

  /** Removes the snapshots of server processes that are gone (a crash skips their shutdown). */
  private sweepOnce(): void {
    if (this.swept) return;
    this.swept = true;
    for (const name of readdirSync(this.directory)) {
      const pid = Number(name.split("-")[0]);
      if (Number.isInteger(pid) && pid > 0 && !isRunning(pid)) rmSync(path.join(this.directory, name), { force: true });
    }
  }
}

/** Kills a capture's process group and closes its pipes, which a process it started in a session of its own may hold. */
function stopCapture(child: ResultPromise, killProcessGroup: (child: ResultPromise) => void): void {
  killProcessGroup(child);
  child.stdout?.destroy();
  child.stderr?.destroy();
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** A stable key for a shell and an environment. */
function fingerprint(shell: string, env: Readonly<Record<string, string>>): string {
  const hash = createHash("sha256").update(`${shell}\0`);
  for (const name of Object.keys(env).sort()) hash.update(`${name}=${env[name]}\0`);
  return hash.digest("hex");
}

/**
 * Runs `argv` as a process group (listed in `running` meanwhile) and resolves with its stdout, or
 * null if it fails or outlasts the capture timeout: then its group is killed and its pipes closed,
 * even if something it started in a session of its own still holds them. Process support loads
 * here, not at start-up.
 */
async function run(argv: readonly string[], env: Readonly<Record<string, string>>, running: Set<ResultPromise>): Promise<string | null> {
  const { killProcessGroup, processExit, spawnProcessGroup } = await import("./processGroup.js");
  const child = spawnProcessGroup(argv, { cwd: env.HOME ?? homedir(), env: { ...env }, stdin: "ignore" });
  running.add(child);
  // Read and dropped: a profile that writes much to stderr must not stall on a full pipe.
  child.stderr?.resume();
  const chunks: Buffer[] = [];
  child.stdout?.on("data", (chunk: Buffer) => chunks.push(chunk));
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<null>((resolve) => {
    timer = setTimeout(() => {
      stopCapture(child, killProcessGroup);
      resolve(null);
    }, CAPTURE_TIMEOUT_MS);
    timer.unref();
  });
  const exit = await Promise.race([processExit(child), timedOut]);
  clearTimeout(timer);
  running.delete(child);
  return exit?.exitCode === 0 ? Buffer.concat(chunks).toString("utf8") : null;
}
