/**
 * The sandbox a server's commands run in: one per server, built by the composition root with the
 * server's home and the other paths of its own that no command may see. It turns a command and its
 * policy into a {@link Launcher}: unchanged for full access, else through bubblewrap (bwrapPlan.ts)
 * started by the sandbox launcher (sandboxLauncher.ts) under the system-call filter (seccomp.ts);
 * never unsandboxed when the sandbox cannot start or hold here.
 */
import path from "node:path";
import type { SandboxPolicy } from "../../protocol/policy.js";
import { SANDBOX_OWN_TREES, type WritableRoots } from "../../workspace/roots.js";
import { networkAllowed, writableRoots } from "./writableRoots.js";
import { bwrapPlan, type SandboxView } from "./bwrapPlan.js";
import { systemProgram } from "./hostPrograms.js";
import { directLauncher, type Launcher } from "./launch.js";
import { MountPoints } from "./mountPoints.js";
import { SandboxLauncher } from "./sandboxLauncher.js";
import { bwrapMissing, INSIDE_CHECK, probeSandbox } from "./sandboxProbe.js";

/** Where a command runs and under which policy. */
export interface SandboxTarget {
  readonly policy: SandboxPolicy;
  /** The directory the policy's writable roots start from (workspace-write makes it writable). */
  readonly workspace: string;
  /** The command's working directory inside the sandbox. */
  readonly cwd: string;
  /** The server's environment (TMPDIR, and git's global settings for the protected paths). */
  readonly env: NodeJS.ProcessEnv;
  /** `bwrap_path` from the config (default: `bwrap` in the system's directories). */
  readonly bwrapPath: string | undefined;
}

/**
 * The outcome of preparing a command: how to start it, or why it must not start (`unavailable`:
 * the sandbox cannot run on this machine at all, rather than in this workspace).
 */
export type Prepared = { readonly launcher: Launcher } | { readonly problem: string; readonly unavailable: boolean };

/** Subdirectories of the home a sandboxed command still reads: skills, and the login-profile snapshots BASH_ENV names. */
const HOME_EXPOSED = ["skills", "shell_snapshots"];

/** A read-only policy: what the server's own sandboxed helpers (the login-profile capture, git for reviews) run under. */
export const READ_ONLY: SandboxPolicy = { type: "readOnly" };

/** Sandbox verdicts per bwrap path: whether it starts and holds is a fact of the machine. */
const probes = new Map<string, Promise<string | null>>();

/** A server's command sandbox. */
export class CommandSandbox {
  private readonly files: SandboxLauncher;
  private readonly mounts: MountPoints;

  constructor(
    /** The server's home: masked in every sandbox, protected inside writable roots. */
    readonly home: string,
    /** Other paths of the server's (listener sockets, token files, the audit log): masked too. */
    private readonly hidden: readonly string[] = [],
    /** The programs and scripts the server runs outside any sandbox (MCP servers'), read-only inside it; asked each time. */
    private readonly executed: () => readonly string[] = () => [],
  ) {
    this.files = new SandboxLauncher(home);
    this.mounts = new MountPoints(this.files.directory);
  }

  /**
   * What no sandboxed command sees of the server, which the server's own reads for one must not
   * show either: its home and its other paths (masked), and its /proc and /dev (a sandbox has
   * fresh ones: see SANDBOX_OWN_TREES).
   */
  masked(): readonly string[] {
    return [this.home, ...this.hidden, ...SANDBOX_OWN_TREES];
  }

  /** Where `policy` lets commands and patches write from `cwd`, with what stays read-only inside; null for full access. */
  roots(policy: SandboxPolicy, cwd: string, env: NodeJS.ProcessEnv): WritableRoots | null {
    return writableRoots(policy, cwd, this.home, env, { hidden: this.hidden, executed: this.executed() });
  }

  /** How to start `argv` under `target.policy`: as it is for full access, else in the sandbox; or why not. */
  async prepare(argv: readonly string[], target: SandboxTarget): Promise<Prepared> {
    const roots = this.roots(target.policy, target.workspace, target.env);
    if (!roots) return { launcher: directLauncher(argv) };
    const requested = target.bwrapPath ?? "bwrap";
    const bwrap = systemProgram(requested);
    if (!bwrap) return { problem: bwrapMissing(requested), unavailable: true };
    const problem = await this.problem(bwrap);
    if (problem) return { problem, unavailable: true };
    return this.launcherFor(bwrap, argv, { roots: roots.roots, protectedPaths: roots.protectedPaths, networkAccess: networkAllowed(target.policy), cwd: target.cwd });
  }

  /** Removes the server's launcher files (at shutdown). */
  close(): void {
    this.files.close();
    this.mounts.close();
  }

  /** Whether the sandbox starts and holds with `bwrap` (checked once per path); null when it does. */
  private problem(bwrap: string): Promise<string | null> {
    let probe = probes.get(bwrap);
    if (!probe) {
      const launcher = this.launcherFor(bwrap, INSIDE_CHECK, { roots: [], protectedPaths: [], networkAccess: false, cwd: "/" });
      probe = "problem" in launcher ? Promise.resolve(launcher.problem) : probeSandbox(bwrap, launcher.launcher);
      probes.set(bwrap, probe);
    }
    return probe;
  }

  private launcherFor(bwrap: string, argv: readonly string[], view: Omit<SandboxView, "home" | "homeExposed" | "hidden">): Prepared {
    const plan = bwrapPlan({ ...view, home: this.home, homeExposed: HOME_EXPOSED.map((name) => path.join(this.home, name)), hidden: this.hidden });
    if ("problem" in plan) return { problem: `The command was not run: ${plan.problem}.`, unavailable: false };
    let files: Launcher;
    try {
      files = this.files.launcher(bwrap, plan.args, argv, () => this.mounts.release(plan.created));
    } catch (error) {
      return { problem: `The sandbox is unavailable: ${(error as Error).message}. Sandboxed commands are refused until it is.`, unavailable: true };
    }
    return {
      launcher: (env) => {
        this.mounts.acquire(plan.created);
        return files(env);
      },
    };
  }
}

