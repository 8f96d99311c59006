import { createHash } from "node:crypto";
import { mkdirSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import type { ResultPromise } from "execa";

/** How long the login profile may take to run once before commands fall back to running it themselves. */
const CAPTURE_TIMEOUT_MS = 10_000;
/** Variables a shell sets for itself; restoring the capture's values would be wrong in another shell. */
const SHELL_OWN = new Set(["PWD", "OLDPWD", "SHLVL", "_"]);
/** Printed before the environment, so whatever the profile itself prints to stdout is skipped. */
const ENV_MARKER = "\0agent-app-server:env\0";

/** What the login profile adds to a given environment: variables set and removed, functions defined. */
interface Snapshot {
  readonly set: Readonly<Record<string, string>>;
  readonly unset: readonly string[];
  /** A file of `declare -f` output, sourced through BASH_ENV. */
  readonly file: string;
}

/** The argv and environment to spawn a command with. */
export interface ShellCommand {
  readonly argv: readonly string[];
  readonly env: Record<string, string>;
}

/**
 * Runs the user's login profile once per environment instead of once per command. Commands come as
 * `bash -lc <script>`; sourcing the profile (pyenv, nvm, conda…) can take most of a second each
 * time, longer than a short `yield_time_ms`. As Codex does with its shell snapshots, the profile
 * runs once in the background; each command then runs as `bash -c <script>` with the variables
 * the profile set and, through BASH_ENV, the functions it defined. Aliases are left out, as
 * `bash -lc` does not expand them either. If the profile cannot be captured, commands keep `-lc`.
 */
export class LoginShell {
  private readonly snapshots = new Map<string, Promise<Snapshot | null>>();
  private readonly files = new Set<string>();
  /** Captures still running, killed by {@link close} so none outlives the server. */
  private readonly running = new Set<ResultPromise>();
  private closed = false;

  constructor(private readonly directory: string) {}

  /** Starts capturing the profile for `env` in the background (once per distinct environment). */
  prepare(env: Readonly<Record<string, string>>): Promise<unknown> {
    return this.snapshotFor(env);
  }

  /** `argv` as it should be spawned: a `bash -lc` command without the profile run, else unchanged. */
  async command(argv: readonly string[], env: Record<string, string>): Promise<ShellCommand> {
    const [shell, flag, script] = argv;
    if (argv.length !== 3 || flag !== "-lc" || path.basename(shell!) !== "bash" || env.BASH_ENV !== undefined) return { argv, env };
    const snapshot = await this.snapshotFor(env);
    if (!snapshot) return { argv, env };
    const withProfile: Record<string, string> = { ...env, ...snapshot.set, BASH_ENV: snapshot.file };
    for (const name of snapshot.unset) delete withProfile[name];
    return { argv: [shell!, "-c", script!], env: withProfile };
  }

  /** Stops captures still running and deletes the snapshot files. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.running.size > 0) {
      const { killProcessGroup } = await import("./processGroup.js");
      for (const child of this.running) killProcessGroup(child);
    }
    for (const file of this.files) rmSync(file, { force: true });
    this.files.clear();
  }

  private snapshotFor(env: Readonly<Record<string, string>>): Promise<Snapshot | null> {
    const key = fingerprint(env);
    let snapshot = this.snapshots.get(key);
    if (!snapshot) {
      snapshot = this.capture(env, path.join(this.directory, `${process.pid}-${key.slice(0, 16)}.sh`));
      this.snapshots.set(key, snapshot);
    }
    return snapshot;
  }

  private async capture(env: Readonly<Record<string, string>>, file: string): Promise<Snapshot | null> {
    try {
      mkdirSync(this.directory, { recursive: true });
      // Functions go to the file; the environment comes back NUL-separated, so any value survives.
      const script = `declare -f > "$1" && printf 'unset BASH_ENV\\n' >> "$1" && printf '${ENV_MARKER.replaceAll("\0", "\\0")}' && exec env -0`;
      const output = await run(["/bin/bash", "-lc", script, "bash", file], env, this.running);
      // A capture that outlived close() (killed by it) must not leave its file behind.
      if (this.closed) rmSync(file, { force: true });
      else this.files.add(file);
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
}

/** A stable key for an environment. */
function fingerprint(env: Readonly<Record<string, string>>): string {
  const hash = createHash("sha256");
  for (const name of Object.keys(env).sort()) hash.update(`${name}=${env[name]}\0`);
  return hash.digest("hex");
}

/**
 * Runs `argv` as a process group (listed in `running` meanwhile) and resolves with its stdout, or
 * null if it fails or outlasts the capture timeout. Process support loads here, not at start-up.
 */
async function run(argv: readonly string[], env: Readonly<Record<string, string>>, running: Set<ResultPromise>): Promise<string | null> {
  const { killProcessGroup, processExit, spawnProcessGroup } = await import("./processGroup.js");
  const child = spawnProcessGroup(argv, { cwd: env.HOME ?? homedir(), env: { ...env }, stdin: "ignore" });
  running.add(child);
  // Read and dropped: a profile that writes much to stderr must not stall on a full pipe.
  child.stderr?.resume();
  const chunks: Buffer[] = [];
  child.stdout!.on("data", (chunk: Buffer) => chunks.push(chunk));
  const timer = setTimeout(() => killProcessGroup(child), CAPTURE_TIMEOUT_MS);
  timer.unref();
  const exit = await processExit(child);
  clearTimeout(timer);
  running.delete(child);
  return exit.exitCode === 0 ? Buffer.concat(chunks).toString("utf8") : null;
}
