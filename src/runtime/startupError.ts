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
    default:
      return (error as Error).message;
  }
}
