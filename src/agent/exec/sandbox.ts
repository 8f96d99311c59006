import { existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { SandboxPolicy } from "../../protocol/policy.js";

/** Where a turn may write: the roots, and what stays read-only inside them. */
export interface WritableRoots {
  readonly roots: readonly string[];
  readonly protectedPaths: readonly string[];
}

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

/** Whether `target` is `root` or below it. */
export function isInside(target: string, root: string): boolean {
  const relative = path.relative(root, target);
  return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
}

/** The bubblewrap command line that runs `argv` under `policy` (a writable-roots view and network rule). */
export function bwrapArgv(bwrap: string, roots: WritableRoots, networkAccess: boolean, cwd: string, argv: readonly string[]): string[] {
  const args = [bwrap, "--new-session", "--die-with-parent", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-pid"];
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
 * Checks once per bwrap path that the sandbox can start here; resolves to null when it can, else
 * to a message that says how to fix it (sandboxed commands then fail closed).
 */
export function sandboxProblem(bwrap: string): Promise<string | null> {
  let probe = probes.get(bwrap);
  if (!probe) {
    probe = import("execa").then(({ execa }) => execa(bwrap, ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-pid", "--unshare-net", "--die-with-parent", "--", "true"], {
      reject: false,
      stdin: "ignore",
      timeout: 10_000,
    })).then((result) => {
      if (result.exitCode === 0) return null;
      const why = (result as { code?: string }).code === "ENOENT" ? `\`${bwrap}\` was not found` : `\`${bwrap}\` could not start (${String(result.stderr || result.shortMessage || "").trim()})`;
      return (
        `The sandbox is unavailable: ${why}. Install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap), ` +
        `set \`bwrap_path\` in config.toml, or run without a sandbox (sandbox_mode = "danger-full-access"). ` +
        `Commands are not run unsandboxed (${os.platform()}).`
      );
    });
    probes.set(bwrap, probe);
  }
  return probe;
}
