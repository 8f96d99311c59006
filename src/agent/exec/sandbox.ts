import { existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { SandboxPolicy } from "../../protocol/policy.js";
import { isInside, type WritableRoots } from "../../workspace/roots.js";

/**
 * The writable roots of a policy: none for read-only, everything (null) for full access; for
 * workspace-write the cwd, the temp dirs (unless excluded) and configured roots, with `.git`,
 * `.agents` and the server's home kept read-only inside them.
 */
export function writableRoots(policy: SandboxPolicy, cwd: string, home: string, env: NodeJS.ProcessEnv): WritableRoots | null {
  if (policy.type === "dangerFullAccess" || policy.type === "externalSandbox") return null;
  if (policy.type === "readOnly") return { roots: [], protectedPaths: [] };
  const roots = [cwd, ...(policy.writableRoots ?? [])];
  if (!policy.excludeSlashTmp) roots.push("/tmp");
  if (!policy.excludeTmpdirEnvVar && env.TMPDIR) roots.push(env.TMPDIR);
  const unique = [...new Set(roots.map((root) => path.resolve(root)))];
  const protectedPaths = unique.flatMap((root) => [path.join(root, ".git"), path.join(root, ".agents")]);
  const resolvedHome = path.resolve(home);
  if (unique.some((root) => isInside(resolvedHome, root))) protectedPaths.push(resolvedHome);
  return { roots: unique, protectedPaths };
}

/**
 * bubblewrap's options that take every privilege away from the sandboxed command, even when the
 * server runs as root: a user namespace of its own (bwrap keeps all capabilities for a root caller
 * without one), no capabilities in it, no further user namespaces (`unshare -U` would give them
 * back), and a read-only /proc (a root-owned process writes /proc/sys without any capability, and
 * `kernel.core_pattern` there runs a program as root outside the sandbox). bwrap sets no_new_privs.
 */
const HARDENING = ["--unshare-user", "--disable-userns", "--cap-drop", "ALL"];

/** The bubblewrap command line that runs `argv` under `policy` (a writable-roots view and network rule). */
export function bwrapArgv(bwrap: string, roots: WritableRoots, networkAccess: boolean, cwd: string, argv: readonly string[]): string[] {
  const args = [bwrap, "--new-session", "--die-with-parent", ...HARDENING, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--remount-ro", "/proc", "--unshare-pid"];
  if (!networkAccess) args.push("--unshare-net");
  for (const root of roots.roots) if (existsSync(root)) args.push("--bind", root, root);
  for (const protectedPath of roots.protectedPaths) if (existsSync(protectedPath)) args.push("--ro-bind", protectedPath, protectedPath);
  args.push("--chdir", cwd, "--", ...argv);
  return args;
}

/** Whether the policy lets commands reach the network. */
export function networkAllowed(policy: SandboxPolicy): boolean {
  if (policy.type === "dangerFullAccess") return true;
  if (policy.type === "externalSandbox") return policy.networkAccess === "enabled";
  return policy.networkAccess ?? false;
}

/** Where a command runs and what its sandbox protects. */
export interface SandboxTarget {
  readonly policy: SandboxPolicy;
  /** The directory the policy's writable roots start from (workspace-write makes it writable). */
  readonly workspace: string;
  /** The command's working directory inside the sandbox. */
  readonly cwd: string;
  /** The server's home, kept read-only inside writable roots. */
  readonly home: string;
  readonly env: NodeJS.ProcessEnv;
  /** `bwrap_path` from the config (default: `bwrap` on the PATH). */
  readonly bwrapPath: string | undefined;
}

/**
 * The command line that runs `argv` under `target.policy`: wrapped in bubblewrap for read-only and
 * workspace-write, unchanged for full access or an external sandbox; or, when bubblewrap cannot
 * start here, the message saying how to fix that (the command must then not run at all).
 */
export async function sandboxedArgv(argv: readonly string[], target: SandboxTarget): Promise<{ argv: string[] } | { problem: string }> {
  const roots = writableRoots(target.policy, target.workspace, target.home, target.env);
  if (!roots) return { argv: [...argv] };
  const bwrap = target.bwrapPath ?? "bwrap";
  const problem = await sandboxProblem(bwrap);
  if (problem) return { problem };
  return { argv: bwrapArgv(bwrap, roots, networkAllowed(target.policy), target.cwd, argv) };
}

const probes = new Map<string, Promise<string | null>>();

/**
 * Checks once per bwrap path that the sandbox starts here and holds: a read-only sandbox with the
 * same options as every command reads its own /proc/self/status, which must show no capabilities
 * and no_new_privs. Resolves to null when it holds, else to a message saying why not and how to fix
 * it (sandboxed commands then fail closed).
 */
export function sandboxProblem(bwrap: string): Promise<string | null> {
  let probe = probes.get(bwrap);
  if (!probe) {
    probe = probeSandbox(bwrap).then((why) =>
      why === null
        ? null
        : `The sandbox is unavailable: ${why}. Until then sandboxed commands are refused, never run unsandboxed ` +
          `(${os.platform()}); sandbox_mode = "danger-full-access" runs them without a sandbox.`,
    );
    probes.set(bwrap, probe);
  }
  return probe;
}

// bwrap's errors when user namespaces are refused (by the kernel, a sysctl, AppArmor or a container):
// "No permissions to create new namespace…", "Creating new namespace failed…", "setting up uid map…".
const USERNS_REFUSED = /namespace|uid map/i;

// Run in the probe sandbox: its own status, and whether the kernel's settings can be written.
const INSIDE_CHECK = "cat /proc/self/status && if [ -w /proc/sys/kernel/core_pattern ]; then echo 'ProcSys: writable'; fi";

/** Why the hardened sandbox cannot run here (with the fix), or null when it runs and holds. */
async function probeSandbox(bwrap: string): Promise<string | null> {
  const { execa } = await import("execa");
  const [command, ...args] = bwrapArgv(bwrap, { roots: [], protectedPaths: [] }, false, "/", ["sh", "-c", INSIDE_CHECK]);
  const result = await execa(command!, args, { reject: false, stdin: "ignore", timeout: 10_000 });
  const stderr = String(result.stderr ?? "").trim();
  if ((result as { code?: string }).code === "ENOENT") {
    return `\`${bwrap}\` was not found. Install bubblewrap 0.8.0 or later (Debian/Ubuntu: apt-get install bubblewrap) or set \`bwrap_path\` in config.toml`;
  }
  if (result.exitCode !== 0) {
    if (/disable-userns|unknown option|unrecognized option/i.test(stderr)) {
      return `\`${bwrap}\` is too old (${stderr}): it needs --disable-userns, which came in bubblewrap 0.8.0. Install bubblewrap 0.8.0 or later, or point \`bwrap_path\` in config.toml at one`;
    }
    if (USERNS_REFUSED.test(stderr)) {
      return (
        `\`${bwrap}\` could not create the user namespace that takes the command's privileges away (${stderr}). ` +
        `Allow user namespaces: sysctl user.max_user_namespaces=15000, and where they exist kernel.unprivileged_userns_clone=1 ` +
        `and kernel.apparmor_restrict_unprivileged_userns=0 (or an AppArmor profile for bwrap); in a container, allow the unshare and mount system calls`
      );
    }
    return `\`${bwrap}\` could not start (${stderr || result.shortMessage || `exit code ${String(result.exitCode)}`}). Install bubblewrap 0.8.0 or later (Debian/Ubuntu: apt-get install bubblewrap) or set \`bwrap_path\` in config.toml`;
  }
  const leaks = privilegeLeaks(String(result.stdout ?? ""));
  if (leaks.length > 0) {
    return `\`${bwrap}\` started, but a command in it would keep privileges (${leaks.join(", ")}). Use an unmodified bubblewrap 0.8.0 or later (\`bwrap_path\` in config.toml)`;
  }
  return null;
}

/** What the probe saw that a sandboxed command must not have: capabilities, no_new_privs unset, a writable /proc/sys. */
function privilegeLeaks(status: string): string[] {
  const field = (name: string) => new RegExp(`^${name}:\\s*(\\S+)`, "m").exec(status)?.[1];
  const leaks: string[] = [];
  for (const name of ["CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"]) {
    const value = field(name);
    if (value === undefined || !/^0+$/.test(value)) leaks.push(`${name} ${value ?? "missing"}`);
  }
  const noNewPrivs = field("NoNewPrivs");
  if (noNewPrivs !== "1") leaks.push(`NoNewPrivs ${noNewPrivs ?? "missing"}`);
  if (field("ProcSys") !== undefined) leaks.push("/proc/sys writable");
  return leaks;
}
