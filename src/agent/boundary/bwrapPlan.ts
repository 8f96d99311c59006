/**
 * The bubblewrap command line for one sandboxed command: what it sees and what it may write.
 * - `/` read-only, a fresh `/dev` and `/proc` (read-only: a process that is root outside writes
 *   `/proc/sys` without any capability), new user, PID, IPC, UTS and cgroup namespaces, and a new
 *   network namespace unless the policy grants network.
 * - No privileges, even for a root server: a user namespace of its own (bubblewrap leaves a root
 *   caller every capability without one), `--cap-drop ALL`, no further user namespaces, and
 *   no_new_privs (bubblewrap sets it).
 * - The writable roots bound read-write, and each protected path inside them read-only again: one
 *   that exists is bound over itself; one that does not is made impossible to create by mounting an
 *   empty read-only directory at its first missing component (bubblewrap creates that mount point
 *   on the host; it is removed once no sandbox uses it, see mountPoints.ts). The directories on
 *   the way are pinned (bound over themselves), so none can be renamed away with it.
 * - The server's own files hidden: its home is an empty tmpfs (with only the subdirectories
 *   commands need bound back, read-only), and every other path of the server's (listener sockets,
 *   token files, the audit log) is covered.
 */
import { lstatSync, statSync } from "node:fs";
import path from "node:path";
import { isInside } from "../../workspace/roots.js";

/** What one sandbox shows its command. */
export interface SandboxView {
  /** Writable roots, absolute and resolved. */
  readonly roots: readonly string[];
  /** Paths inside the roots that stay read-only, existing or not. */
  readonly protectedPaths: readonly string[];
  readonly networkAccess: boolean;
  /** The command's working directory. */
  readonly cwd: string;
  /** The server's home, masked. */
  readonly home: string;
  /** Subdirectories of the home bound back read-only (skills, the login-profile snapshots). */
  readonly homeExposed: readonly string[];
  /** Other files and directories of the server's, masked. */
  readonly hidden: readonly string[];
}

/** The options after `bwrap` up to (not including) `--`, and the mount points bubblewrap will create on the host. */
export interface BwrapPlan {
  readonly args: string[];
  readonly created: string[];
}

const NAMESPACES = ["--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try", "--disable-userns"];
const PRIVILEGES = ["--cap-drop", "ALL", "--new-session", "--die-with-parent"];

/** The plan for `view`, or why the sandbox must not start (a protected path it cannot hold). */
export function bwrapPlan(view: SandboxView): BwrapPlan | { problem: string } {
  const args = [...NAMESPACES, ...PRIVILEGES, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--remount-ro", "/proc"];
  if (!view.networkAccess) args.push("--unshare-net");
  const created: string[] = [];
  for (const root of view.roots) if (isDirectory(root)) args.push("--bind", root, root);
  const pins = new Set<string>();
  const binds = new Set<string>();
  const creates = new Set<string>();
  // A path inside another protected one is held with it (and could not get a mount point of its own there).
  const outermost = view.protectedPaths.filter((entry) => !view.protectedPaths.some((other) => other !== entry && isInside(entry, other)));
  for (const protectedPath of outermost) {
    if (isInside(protectedPath, view.home)) continue;
    const root = view.roots.find((candidate) => isInside(protectedPath, candidate));
    if (!root) continue;
    const held = holdProtected(protectedPath, root);
    if ("problem" in held) return held;
    for (const pin of held.pins) pins.add(pin);
    if (held.bind) binds.add(held.bind);
    if (held.create) creates.add(held.create);
  }
  // The home and the server's other files are masked below; a directory above one that a command
  // could rename would take the mask with it and leave the server using a directory of its making.
  for (const masked of [view.home, ...view.hidden]) {
    const root = view.roots.find((candidate) => isInside(masked, candidate) && masked !== candidate);
    if (!root || kind(masked) === "missing") continue;
    const held = holdProtected(masked, root);
    if ("problem" in held) return held;
    for (const pin of held.pins) pins.add(pin);
  }
  // Shallow before deep: a later mount covers an earlier one at or above it.
  for (const pin of byDepth(pins)) if (!binds.has(pin)) args.push("--bind", pin, pin);
  for (const bind of byDepth(binds)) args.push("--ro-bind", bind, bind);
  for (const create of byDepth(creates)) {
    args.push("--tmpfs", create, "--remount-ro", create);
    created.push(create);
  }
  args.push("--tmpfs", view.home);
  for (const exposed of view.homeExposed) if (kind(exposed) === "directory") args.push("--ro-bind", exposed, exposed);
  for (const hidden of view.hidden) {
    const what = kind(hidden);
    if (what === "directory") args.push("--tmpfs", hidden);
    else if (what !== "missing") args.push("--ro-bind", "/dev/null", hidden);
  }
  args.push("--chdir", view.cwd);
  return { args, created };
}

/**
 * How to keep `target` (inside `root`) read-only: bind it over itself when it exists; else mount an
 * empty read-only directory at its first missing component. Every directory on the way (below the
 * root) is pinned: bound over itself, writable as before, but a mount point, which cannot be
 * renamed or removed (else `mv tools tools2; mkdir tools` would put a new, writable
 * `tools/fsmon.sh` where the protected one was). A symlink on the way cannot be held: a command
 * could replace the link itself, so the sandbox refuses to start.
 */
function holdProtected(target: string, root: string): { pins: string[]; bind?: string; create?: string } | { problem: string } {
  const parts = path.relative(root, target).split(path.sep);
  const pins: string[] = [];
  let current = root;
  for (const [index, part] of parts.entries()) {
    current = path.join(current, part);
    const what = kind(current);
    if (what === "missing") return { pins, create: current };
    if (what === "symlink") {
      return {
        problem: `${current} is a symbolic link, and ${target} must stay read-only behind it; a sandboxed command could replace the link. Replace the link with the directory or file it points to`,
      };
    }
    if (index < parts.length - 1) pins.push(current);
  }
  return { pins, bind: target };
}

/** Paths with fewer components first. */
function byDepth(paths: Iterable<string>): string[] {
  return [...paths].sort((a, b) => a.split(path.sep).length - b.split(path.sep).length);
}

/** What is at `file` now, without following a final symlink. */
function kind(file: string): "missing" | "symlink" | "directory" | "other" {
  try {
    const stats = lstatSync(file);
    return stats.isSymbolicLink() ? "symlink" : stats.isDirectory() ? "directory" : "other";
  } catch {
    return "missing";
  }
}

/** Whether `dir` is a directory, following symlinks (a root may be reached through one, as `/tmp` can be). */
function isDirectory(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}
