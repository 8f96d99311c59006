/**
 * The one way a sandboxed command starts. Outside the sandbox, nothing of the command's
 * environment is ever used: a fixed bash script (the launcher) with an environment of our own
 * 1. opens the system-call filter as fd 3 (bubblewrap's `--seccomp 3` reads and closes it) and the
 *    command's environment (NUL-separated, in a private file) as fd 4;
 * 2. closes every other descriptor above 2, so nothing the server inherited or opened reaches the
 *    command, whatever a library forgot to mark close-on-exec;
 * 3. execs bubblewrap by its absolute path, with that same environment of ours: a variable the
 *    command's environment holds (`LD_PRELOAD` from a profile a command wrote, exported functions,
 *    SHELLOPTS, PS4…) never reaches the launcher or bubblewrap.
 * Inside the sandbox, under the filter, a second fixed script (the loader) exports the environment
 * from fd 4 (bash takes identifier names only, and keeps SHELLOPTS, BASHOPTS, UID, EUID and PPID
 * to itself: those few do not reach a sandboxed command), closes it and execs the command.
 * The files live in the server's home, which every sandbox masks.
 */
import { randomUUID } from "node:crypto";
import { chmodSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { COMMAND_MARKER } from "../exec/commandMarker.js";
import { SYSTEM_BASH } from "./hostPrograms.js";
import type { Launcher } from "./launch.js";
import { seccompProgram } from "./seccomp.js";
import { isProcessAlive } from "../../runtime/processAlive.js";

const LAUNCHER_SCRIPT = [
  'exec 3<"$1" 4<"$2" || exit 126',
  "shift 2",
  'for fd in /proc/self/fd/*; do fd=${fd##*/}; case $fd in 0|1|2|3|4) ;; *) eval "exec $fd<&-" ;; esac; done',
  'exec -- "$@"',
].join("\n");

const LOADER_SCRIPT = [
  `unset SHLVL OLDPWD ${COMMAND_MARKER}`,
  "while IFS= read -r -d '' entry <&4; do export -- \"$entry\" 2>/dev/null; done",
  // `exec` lowers SHLVL by one for the program it runs: raise it first, so the command gets the value it was given.
  // (Digits only: bash evaluates a variable's value as an expression in arithmetic, `$(…)` in a subscript included.)
  'case ${SHLVL-x} in *[!0-9]*) ;; *) SHLVL=$((SHLVL + 1)) ;; esac',
  "exec 4<&-",
  'exec -- "$@"',
].join("\n");

/** argv[0] of the launcher and of the loader, as `ps` shows them. */
const LAUNCHER_NAME = "agent-app-server-sandbox";
const LOADER_NAME = "agent-app-server-sandboxed";

/** The launcher's private files: the filter, and one environment file per running command. */
export class SandboxLauncher {
  private readonly dir: string;
  private filterFile: string | null = null;
  private swept = false;
  private readonly instance = randomUUID();
  private sequence = 0;

  constructor(home: string) {
    this.dir = path.join(home, "sandbox");
  }

  /** The private directory the launcher's files live in (masked in every sandbox). */
  get directory(): string {
    return this.dir;
  }

  /**
   * A launcher for `bwrap` with `options` (up to `--`) running `argv`, under the filter; `exited`
   * also runs `release`. Throws (with the reason) when the filter has no table for this machine
   * or the files cannot be written.
   */
  launcher(bwrap: string, options: readonly string[], argv: readonly string[], release: () => void): Launcher {
    const filter = this.filter();
    return (env) => {
      const envFile = path.join(this.dir, `env-${process.pid}-${this.instance}-${this.sequence++}`);
      writeFileSync(envFile, Object.entries(env).map(([name, value]) => `${name}=${value}\0`).join(""), { mode: 0o600 });
      let done = false;
      const launcherEnv: Record<string, string> = env[COMMAND_MARKER] === undefined ? {} : { [COMMAND_MARKER]: env[COMMAND_MARKER] };
      return {
        argv: [
          ...[SYSTEM_BASH, "--norc", "--noprofile", "-c", LAUNCHER_SCRIPT, LAUNCHER_NAME, filter, envFile],
          ...[bwrap, "--seccomp", "3", ...options, "--"],
          ...[SYSTEM_BASH, "--norc", "--noprofile", "-c", LOADER_SCRIPT, LOADER_NAME, ...argv],
        ],
        env: launcherEnv,
        exited: () => {
          if (done) return;
          done = true;
          rmSync(envFile, { force: true });
          release();
        },
      };
    };
  }

  /** The filter file, written once per server (0600, in the private directory). */
  private filter(): string {
    if (this.filterFile) return this.filterFile;
    const program = seccompProgram();
    if (!program) throw new Error(`the system-call filter has no table for this machine's architecture (${process.arch})`);
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    chmodSync(this.dir, 0o700);
    this.sweep();
    const file = path.join(this.dir, `seccomp-${process.pid}-${this.instance}.bpf`);
    writeFileSync(file, program, { mode: 0o600 });
    return (this.filterFile = file);
  }

  /** Removes the files of servers that are gone (a crash skips their clean-up). */
  private sweep(): void {
    if (this.swept) return;
    this.swept = true;
    for (const name of readdirSync(this.dir)) {
      const pid = Number(/^(?:env|seccomp)-(\d+)-/.exec(name)?.[1]);
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && !isProcessAlive(pid)) rmSync(path.join(this.dir, name), { force: true });
    }
  }

  /** Removes this server's files (at shutdown). */
  close(): void {
    if (this.filterFile) rmSync(this.filterFile, { force: true });
    this.filterFile = null;
  }
}

