import { createHash, randomUUID } from "node:crypto";
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir, userInfo } from "node:os";
import path from "node:path";
import type { Config } from "../../config/schema.js";
import { isProcessAlive } from "../../runtime/processAlive.js";
import { READ_ONLY, type CommandSandbox } from "../boundary/commandSandbox.js";
import { isExecutable, SYSTEM_BASH, systemProgram } from "../boundary/hostPrograms.js";
import { directLauncher } from "../boundary/launch.js";
import { childEnvironment } from "./childEnvironment.js";
import { commandGate } from "./commandGate.js";

/** How long a command waits for the profile's first run before running `bash -lc` itself (the run goes on). */
const CAPTURE_WAIT_MS = 10_000;
/** A profile slower than this is worth a warning: every thread's first command waits for it. */
const SLOW_PROFILE_MS = 2_000;
/**
 * The bound on a profile's run, enforced by coreutils `timeout` so that it holds after the server
 * has gone: SIGTERM first (the profile's traps run, its lock files go), SIGKILL 10 s later.
 */
const CAPTURE_BOUND_SECONDS = 120;
/** Variables a shell sets for itself; restoring the capture's values would be wrong in another shell. */
const SHELL_OWN = new Set(["PWD", "OLDPWD", "SHLVL", "_"]);
/** Printed before the snapshot and before the environment, so whatever the profile itself prints to stdout is skipped. */
const SNAPSHOT_MARKER = "\0agent-app-server:snapshot\0";
const ENV_MARKER = "\0agent-app-server:env\0";
/**
 * Prints the snapshot (sourced later through BASH_ENV), then the environment. BASH_ENV is unset
 * first, so a function the shell cannot parse back never leaves it set for the command's child
 * shells; shell options come before the functions that may need them (extglob patterns); `builtin`
 * so that no function of the profile's can stand in for these commands. The read-only options a
 * login shell reports are left out. It prints rather than writes: it runs in a read-only sandbox.
 */
const CAPTURE_SCRIPT = [
  `builtin printf '${SNAPSHOT_MARKER.replaceAll("\0", "\\0")}unset BASH_ENV\\n'`,
  `builtin shopt -p | while builtin read -r line; do case "$line" in *login_shell|*restricted_shell) ;; *) builtin printf '%s\\n' "$line" ;; esac; done`,
  "builtin declare -f",
  `builtin printf '${ENV_MARKER.replaceAll("\0", "\\0")}'`,
  "exec env -0",
].join(" && ");

/** What the login profile adds to a given environment: variables set and removed, options and functions. */
interface Snapshot {
  readonly set: Readonly<Record<string, string>>;
  readonly unset: readonly string[];
  /** The profile's shell options and functions, sourced through BASH_ENV. */
  readonly file: string;
  /** The file's identity when written (`dev:ino`): a file found there later that is not it is not used. */
  readonly identity: string;
}

/** The argv and environment to spawn a command with. */
export interface ShellCommand {
  readonly argv: readonly string[];
  readonly env: Record<string, string>;
}

/**
 * Runs the user's login profile once per environment instead of once per command. Commands come
 * as `bash -lc <script>`; sourcing the profile (pyenv, nvm, conda…) can take most of a second each
 * time, longer than a short `yield_time_ms`. Like Codex's shell snapshots, the profile runs once
 * in the background; each command then runs as `bash -c <script>` with the variables the profile
 * set and, through BASH_ENV, the options and functions it defined. Aliases are left out, as
 * `bash -lc` does not expand them either. If the profile cannot be captured, commands keep `-lc`.
 *
 * The capture runs the user's own shell (the passwd entry's, else `$SHELL` at start-up, when it is
 * bash; else the system's bash), never a program a tool call names, and it runs in a read-only
 * sandbox with no network: a profile (or a file it sources) that a command could have written is
 * only ever run sandboxed. Only when the sandbox cannot run here (so no sandboxed command can
 * either) does it run as a `bash -lc` command outside one would.
 */
export class LoginShell {
  private readonly snapshots = new Map<string, Promise<Snapshot | null>>();
  private readonly files = new Set<string>();
  /** Per instance, so two servers sharing a home never delete each other's snapshots. */
  private readonly instance = randomUUID();
  /** The shell whose profile is captured, chosen once at start-up. */
  readonly shell: string;
  private closed = false;
  private swept = false;

  constructor(
    private readonly directory: string,
    private readonly sandbox: CommandSandbox,
    /** Told when the profile is slow or fails: a log line, and a `configWarning` to clients once. */
    private readonly warn: (summary: string, details: string) => void = () => undefined,
    /** `warnWhenSlow: false`: no warning for a slow profile (deterministic transcripts, whatever the machine's load). */
    private readonly options: { readonly warnWhenSlow: boolean } = { warnWhenSlow: true },
    serverEnv: NodeJS.ProcessEnv = process.env,
  ) {
    this.shell = userBash(serverEnv);
  }

  /** Starts capturing the profile for commands under `config` in the background (unless opted out). */
  async prepare(config: Config, serverEnv: NodeJS.ProcessEnv): Promise<void> {
    if (config.features?.shell_snapshot === false) return;
    await this.snapshotFor(childEnvironment(config.shell_environment_policy, serverEnv), config);
  }

  /**
   * How to spawn `argv` under `config`: with the environment `shell_environment_policy` gives it,
   * and for a `bash -lc` command, as `bash -c` without the profile run (unless opted out). What the
   * profile exports passes the same policy. The command's own bash runs it, wherever it starts.
   */
  async command(argv: readonly string[], config: Config, serverEnv: NodeJS.ProcessEnv): Promise<ShellCommand> {
    const policy = config.shell_environment_policy;
    const env = childEnvironment(policy, serverEnv);
    const [shell, flag, script] = argv;
    if (config.features?.shell_snapshot === false) return { argv, env };
    if (argv.length !== 3 || flag !== "-lc" || path.basename(shell!) !== "bash" || env.BASH_ENV !== undefined) return { argv, env };
    const snapshot = await withinWait(this.snapshotFor(env, config));
    if (!snapshot || fileIdentity(snapshot.file) !== snapshot.identity) return { argv, env };
    const withProfile: Record<string, string> = { ...env, ...snapshot.set };
    for (const name of snapshot.unset) delete withProfile[name];
    // A `bash -c` whose stdin is a socket (our pipes are) and whose SHLVL is below 1 takes itself for a
    // command run by sshd: it reads ~/.bashrc instead of BASH_ENV. A login shell never does.
    const shellLevel = Math.max(1, Number.parseInt(env.SHLVL ?? "0", 10) || 0);
    return { argv: [shell!, "-c", script!], env: { ...childEnvironment(policy, withProfile), BASH_ENV: snapshot.file, SHLVL: String(shellLevel) } };
  }

  /** Deletes the snapshot files; a capture still running stops with the server (it can write nothing). */
  async close(): Promise<void> {
    this.closed = true;
    for (const file of this.files) rmSync(file, { force: true });
    this.files.clear();
  }

  private snapshotFor(env: Readonly<Record<string, string>>, config: Config): Promise<Snapshot | null> {
    if (this.closed) return Promise.resolve(null);
    const key = fingerprint(this.shell, env);
    let snapshot = this.snapshots.get(key);
    if (!snapshot) {
      snapshot = this.capture(env, config, path.join(this.directory, `${process.pid}-${this.instance}-${key.slice(0, 12)}.sh`));
      this.snapshots.set(key, snapshot);
    }
    return snapshot;
  }

  private async capture(env: Readonly<Record<string, string>>, config: Config, file: string): Promise<Snapshot | null> {
    try {
      mkdirSync(this.directory, { recursive: true });
      this.sweepOnce();
      this.files.add(file);
      const outputFile = `${file}.out`;
      this.files.add(outputFile);
      const started = Date.now();
      const exit = await this.run(env, config, outputFile);
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      const profile = profileFile(env.HOME ?? homedir());
      if (exit !== 0) {
        this.warn(
          "The login profile failed, so commands run `bash -lc` themselves",
          `${profile} exited with ${exit === null ? "no status (it was stopped)" : `status ${exit}`} after ${seconds} s when run by \`${this.shell} -lc\`; each command then runs it again.`,
        );
      } else if (this.options.warnWhenSlow && Date.now() - started > SLOW_PROFILE_MS) {
        this.warn("The login profile is slow", `${profile} took ${seconds} s to run; each thread's first command waited for it (at most ${CAPTURE_WAIT_MS / 1000} s).`);
      }
      const output = exit === 0 && !this.closed ? readFileSync(outputFile, "utf8") : null;
      rmSync(outputFile, { force: true });
      const envStart = output?.lastIndexOf(ENV_MARKER) ?? -1;
      const snapshotStart = envStart === -1 ? -1 : output!.lastIndexOf(SNAPSHOT_MARKER, envStart);
      if (output === null || snapshotStart === -1) return null;
      const after = new Map<string, string>();
      for (const entry of output.slice(envStart + ENV_MARKER.length).split("\0")) {
        const equals = entry.indexOf("=");
        if (equals > 0) after.set(entry.slice(0, equals), entry.slice(equals + 1));
      }
      if (after.has("BASH_ENV")) return null;
      writeFileSync(file, output.slice(snapshotStart + SNAPSHOT_MARKER.length, envStart), { mode: 0o600 });
      const identity = fileIdentity(file);
      const set: Record<string, string> = {};
      for (const [name, value] of after) if (!SHELL_OWN.has(name) && env[name] !== value) set[name] = value;
      const unset = Object.keys(env).filter((name) => !after.has(name) && !SHELL_OWN.has(name));
      return identity === null ? null : { set, unset, file, identity };
    } catch {
      return null;
    }
  }

  /**
   * Runs the capture detached from the server (its own process group, stdout to `outputFile`, no
   * pipes to us), in a read-only sandbox, bounded by coreutils `timeout` (SIGTERM, then SIGKILL 10 s
   * later). Resolves with its exit status (null: no status). Process support loads here.
   */
  private async run(env: Readonly<Record<string, string>>, config: Config, outputFile: string): Promise<number | null> {
    const { processExit, spawnDetached } = await import("./processGroup.js");
    const home = env.HOME ?? homedir();
    const timeout = systemProgram("timeout");
    const argv = [...(timeout ? [timeout, "--signal=TERM", "--kill-after=10", String(CAPTURE_BOUND_SECONDS)] : []), this.shell, "-lc", CAPTURE_SCRIPT];
    const prepared = await this.sandbox.prepare(argv, { policy: READ_ONLY, workspace: home, cwd: home, env, bwrapPath: config.bwrap_path });
    // No sandbox here means no sandboxed command either: only unsandboxed ones, which would run the profile themselves.
    const launcher = "launcher" in prepared ? prepared.launcher : directLauncher(argv);
    const child = spawnDetached(await commandGate.startPermit(), launcher, { cwd: home, env: { ...env }, outputFile });
    const exit = await processExit(child);
    return exit.spawnError === null ? exit.exitCode : null;
  }

  /** Removes the snapshots of server processes that are gone (a crash skips their shutdown). */
  private sweepOnce(): void {
    if (this.swept) return;
    this.swept = true;
    for (const name of readdirSync(this.directory)) {
      const pid = Number(name.split("-")[0]);
      if (Number.isInteger(pid) && pid > 0 && !isProcessAlive(pid)) rmSync(path.join(this.directory, name), { force: true });
    }
  }
}

/**
 * The user's own bash, fixed at start-up: the passwd entry's shell, else `$SHELL`, when it is an
 * executable named bash; else the system's bash. Commands run bash (`bash -lc`), so a user whose
 * shell is zsh gets the system bash's profile, as `bash -lc` would read it.
 */
function userBash(env: NodeJS.ProcessEnv): string {
  let passwdShell: string | undefined;
  try {
    passwdShell = userInfo().shell ?? undefined;
  } catch {
    passwdShell = undefined;
  }
  for (const candidate of [passwdShell, env.SHELL]) {
    if (candidate && path.isAbsolute(candidate) && path.basename(candidate) === "bash" && isExecutable(candidate)) return candidate;
  }
  return SYSTEM_BASH;
}

/** The file a login shell reads first, as bash looks for it; named in warnings. */
function profileFile(home: string): string {
  for (const name of [".bash_profile", ".bash_login", ".profile"]) {
    if (existsSync(path.join(home, name))) return path.join(home, name);
  }
  return "the login profile";
}

/** The snapshot, or null once a command has waited {@link CAPTURE_WAIT_MS} for it (the capture itself goes on). */
function withinWait(snapshot: Promise<Snapshot | null>): Promise<Snapshot | null> {
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), CAPTURE_WAIT_MS);
    timer.unref();
  });
  return Promise.race([snapshot, waited]).finally(() => clearTimeout(timer));
}

/** A regular file's `dev:ino` (not following a final symlink), or null. */
function fileIdentity(file: string): string | null {
  try {
    const stats = lstatSync(file);
    return stats.isFile() ? `${stats.dev}:${stats.ino}` : null;
  } catch {
    return null;
  }
}

/** A stable key for a shell and an environment. */
function fingerprint(shell: string, env: Readonly<Record<string, string>>): string {
  const hash = createHash("sha256").update(`${shell}\0`);
  for (const name of Object.keys(env).sort()) hash.update(`${name}=${env[name]}\0`);
  return hash.digest("hex");
}
