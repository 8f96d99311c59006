import { ioFailure } from "../../protocol/errors.js";

/** What the common errno codes mean for the path a client asked about. */
const REASONS: Record<string, string> = {
  ENOENT: "does not exist",
  EEXIST: "already exists",
  ENOTDIR: "is not a directory (or a part of the path is not)",
  EISDIR: "is a directory",
  ENOTEMPTY: "is a directory that is not empty; pass recursive: true to remove it with its contents",
  EACCES: "cannot be accessed: permission denied",
  EPERM: "cannot be changed: operation not permitted",
  ELOOP: "has too many levels of symbolic links",
  ENOSPC: "cannot be written: no space left on the device",
  EROFS: "cannot be written: the filesystem is read-only",
};

/**
 * Runs a file operation, turning an error from the operating system into -32603 (Codex's code
 * for I/O failures) with a message naming `shownPath`, the path as the client sent it, and the
 * errno code in `data.code`; `reasons` words codes for this operation. Anything else propagates.
 */
export async function reportingFsErrors<T>(
  method: string,
  shownPath: string,
  operation: () => Promise<T>,
  reasons: Record<string, string> = {},
): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    throw fsFailure(method, shownPath, error, reasons);
  }
}

function fsFailure(method: string, shownPath: string, error: unknown, reasons: Record<string, string>): unknown {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (typeof code !== "string" || !(error instanceof Error)) return error;
  const reason = reasons[code] ?? REASONS[code];
  const message = reason ? `${method} failed: ${shownPath} ${reason}` : `${method} failed for ${shownPath}: ${error.message}`;
  return ioFailure(message, { code, path: shownPath });
}
