import path from "node:path";
import { isInside } from "../agent/exec/sandbox.js";
import { realLocation } from "../agent/patch/patchApply.js";
import type { Config } from "../config/schema.js";
import { invalidRequest } from "../protocol/errors.js";

/**
 * How a path is confined: `target` follows a final symlink (reading or writing through it),
 * `entry` stops at the directory entry itself (removing or inspecting a symlink, not its target).
 */
export type ConfineMode = "target" | "entry";

/**
 * The directories client file requests (`fs/*`, `fuzzyFileSearch`) may reach. The list is read
 * at each request, since loading a thread adds its cwd. A path is inside when its real location
 * (`..` and symlinks resolved, for a path that does not exist yet those of its nearest existing
 * ancestor) is under the real location of a root.
 */
export class AllowedRoots {
  constructor(private readonly listRoots: () => Iterable<string>) {}

  /**
   * The real path to operate on for the absolute `target`; throws -32600 naming the path and the
   * roots when it lies outside them. Operating on the returned path, not the one sent, keeps what
   * was checked and what is touched the same (`a/link/..` means one thing to both).
   */
  async confine(target: string, mode: ConfineMode = "target"): Promise<string> {
    const normalized = path.resolve(target);
    const parent = path.dirname(normalized);
    const real =
      mode === "entry" && parent !== normalized
        ? path.join(await realLocation(parent), path.basename(normalized))
        : await realLocation(normalized);
    const roots = [...new Set([...this.listRoots()].map((root) => path.resolve(root)))];
    const realRoots = await Promise.all(roots.map(realLocation));
    if (realRoots.some((root) => isInside(real, root))) return real;
    const resolved = real === normalized ? "" : ` (it resolves to ${real})`;
    throw invalidRequest(
      `${target} is outside the allowed roots${resolved}. File requests may reach the server's working directory, ` +
        `the cwd of a loaded thread and [sandbox_workspace_write] writable_roots: ${roots.join(", ")}`,
      { path: target, allowedRoots: roots },
    );
  }
}

/**
 * The allowed roots of a server: its working directory, the cwd of each loaded thread, and
 * `[sandbox_workspace_write] writable_roots` (relative entries from the working directory).
 */
export function serverRoots(serverCwd: string, config: Config, loadedCwds: () => Iterable<string>): AllowedRoots {
  const configured = (config.sandbox_workspace_write?.writable_roots ?? []).map((root) => path.resolve(serverCwd, root));
  return new AllowedRoots(() => [serverCwd, ...loadedCwds(), ...configured]);
}
