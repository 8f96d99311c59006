/**
 * The programs the server itself starts outside any sandbox (bubblewrap, the launcher's bash,
 * coreutils `timeout`) are looked up in the system's own directories only, never on the PATH the
 * server was started with: a PATH can hold a project's `node_modules/.bin`, `.` or a temp dir, and a
 * `bwrap` the model wrote there would then run as the server's user, unsandboxed.
 */
import { accessSync, constants } from "node:fs";
import path from "node:path";

/** Where system programs live; none of these is ever a writable root of a sane configuration. */
export const SYSTEM_DIRS = ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"] as const;

/** The shell the sandbox launcher and the login-profile capture run: the system's bash, by absolute path. */
export const SYSTEM_BASH = "/bin/bash";

/**
 * The absolute path of `program`: itself when absolute (a path the user configured), else the
 * first executable of that name in {@link SYSTEM_DIRS}; null when it is not an executable there. A
 * relative path with a slash is refused (null): it would depend on the server's working directory.
 */
export function systemProgram(program: string): string | null {
  if (path.isAbsolute(program)) return isExecutable(program) ? program : null;
  if (program.includes("/")) return null;
  return SYSTEM_DIRS.map((dir) => path.join(dir, program)).find(isExecutable) ?? null;
}

/** Whether `file` exists and this process may execute it. */
export function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
