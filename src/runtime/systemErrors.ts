/** Why the server cannot start, as one sentence that names the thing and what to do (exit status 1). */
export class StartupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "StartupError";
  }
}

/** The words for an operating-system error code, for messages a user reads. */
export function describeErrno(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  switch (code) {
    case "EACCES":
    case "EPERM":
      return "permission denied";
    case "EROFS":
      return "the file system is read-only";
    case "ENOSPC":
      return "no space left on the device";
    case "EDQUOT":
      return "the disk quota is exhausted";
    case "ENOTDIR":
    case "EEXIST":
      return "a file is in the way where a directory should be";
    case "EADDRINUSE":
      return "the address is already in use";
    case "EADDRNOTAVAIL":
      return "the address is not on this machine";
    case "EISDIR":
      return "it is a directory";
    case "ENOENT":
      return "there is no such file";
    default:
      return (error as Error).message;
  }
}

// Errors of the disk or of permissions, as opposed to a bug: the user can act on them.
const STORAGE_CODES = new Set(["ENOSPC", "EDQUOT", "EROFS", "EACCES", "EPERM", "EIO", "EMFILE", "ENFILE"]);

const ADVICE: Readonly<Record<string, string>> = {
  ENOSPC: "free some space, then try again",
  EDQUOT: "free some space, then try again",
  EROFS: "the home must be on a writable file system",
  EACCES: "check who owns the home and its permissions",
  EPERM: "check who owns the home and its permissions",
};

/**
 * A storage failure (a full disk, a read-only file system, permissions) in words that name the
 * file, the cause and what to do; null for any other error.
 */
export function describeStorageFault(error: unknown): string | null {
  const fault = error as NodeJS.ErrnoException | null;
  if (!fault || typeof fault.code !== "string" || !STORAGE_CODES.has(fault.code)) return null;
  const verb = fault.syscall === "open" ? "open" : fault.syscall === "rename" ? "rename" : fault.syscall === "mkdir" ? "create the directory" : "write";
  const advice = ADVICE[fault.code];
  return `could not ${verb}${fault.path ? ` ${fault.path}` : ""}: ${describeErrno(fault)} (${fault.code})${advice ? `; ${advice}` : ""}`;
}
