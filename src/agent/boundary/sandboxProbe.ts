/**
 * Before the first sandboxed command, a sandbox with the same launcher, filter and options as
 * every command reads its own /proc/self/status from inside: it must show no capabilities,
 * no_new_privs and the system-call filter, and /proc/sys must not be writable. If bubblewrap is
 * missing, too old or cannot create namespaces here, or anything does not hold, sandboxed
 * commands fail closed with the reason and its fix.
 */
import os from "node:os";
import type { Launcher } from "./launch.js";

// bwrap's errors when user namespaces are refused (by the kernel, a sysctl, AppArmor or a container):
// "No permissions to create new namespace…", "Creating new namespace failed…", "setting up uid map…".
const USERNS_REFUSED = /namespace|uid map/i;

/** Run in the probe sandbox: its own status, and whether the kernel's settings can be written. */
export const INSIDE_CHECK = ["sh", "-c", "cat /proc/self/status && if [ -w /proc/sys/kernel/core_pattern ]; then echo 'ProcSys: writable'; fi"];

/** Why bubblewrap cannot be found: `bwrap` is in none of the system's directories, or `bwrap_path` is not an executable. */
export function bwrapMissing(bwrap: string): string {
  return `The sandbox is unavailable: \`${bwrap}\` was not found (bubblewrap is looked up in the system's directories only, never on PATH). Install bubblewrap 0.8.0 or later (Debian/Ubuntu: apt-get install bubblewrap) or set \`bwrap_path\` in config.toml to its absolute path. Until then sandboxed commands are refused, never run unsandboxed (${os.platform()}); sandbox_mode = "danger-full-access" runs them without a sandbox.`;
}

/**
 * Runs `probe` (a launcher for {@link INSIDE_CHECK} in a read-only sandbox of `bwrap`) and says
 * why sandboxed commands cannot run, with the fix; null when the sandbox starts and holds.
 */
export async function probeSandbox(bwrap: string, probe: Launcher): Promise<string | null> {
  const why = await whyNot(bwrap, probe);
  return why === null
    ? null
    : `The sandbox is unavailable: ${why}. Until then sandboxed commands are refused, never run unsandboxed ` +
        `(${os.platform()}); sandbox_mode = "danger-full-access" runs them without a sandbox.`;
}

async function whyNot(bwrap: string, probe: Launcher): Promise<string | null> {
  const { execa } = await import("../../vendor/execa.js");
  const launch = probe({ PATH: process.env.PATH ?? "/usr/bin:/bin" });
  const [command, ...args] = launch.argv;
  const result = await execa(command!, args, { env: launch.env, extendEnv: false, reject: false, stdin: "ignore", timeout: 10_000 });
  launch.exited();
  const stderr = String(result.stderr ?? "").trim();
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

/** What the probe saw that a sandboxed command must not have: capabilities, no_new_privs unset, no filter, a writable /proc/sys. */
function privilegeLeaks(status: string): string[] {
  const field = (name: string) => new RegExp(`^${name}:\\s*(\\S+)`, "m").exec(status)?.[1];
  const leaks: string[] = [];
  for (const name of ["CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"]) {
    const value = field(name);
    if (value === undefined || !/^0+$/.test(value)) leaks.push(`${name} ${value ?? "missing"}`);
  }
  const noNewPrivs = field("NoNewPrivs");
  if (noNewPrivs !== "1") leaks.push(`NoNewPrivs ${noNewPrivs ?? "missing"}`);
  const seccomp = field("Seccomp");
  if (seccomp !== "2") leaks.push(`Seccomp ${seccomp ?? "missing"} (no system-call filter)`);
  if (field("ProcSys") !== undefined) leaks.push("/proc/sys writable");
  return leaks;
}
