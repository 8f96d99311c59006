import { invalidRequest, ioFailure } from "../../protocol/errors.js";
import { outsideRoots } from "../../workspace/allowedRoots.js";
import { ConfinedFsError } from "../../workspace/confinedFs.js";

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
 * Runs a file operation for `method`, turning its errors into JSON-RPC errors: a path outside the
 * allowed roots, a FIFO or device, or a file too large is -32600; an error from the operating
 * system is -32603 (Codex's code for I/O failures) naming the path (as the client sent it) and
 * the reason, with the errno code in `data.code`. `reasons` words codes for `shownPath` in this
 * operation. Anything else propagates.
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
  if (error instanceof ConfinedFsError && error.code === "EOUTSIDE") return outsideRoots(error);
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (typeof code !== "string" || !(error instanceof Error)) return error;
  const failedPath = error instanceof ConfinedFsError ? error.path : shownPath;
  if (error instanceof ConfinedFsError && code === "ENOTREGULAR") return invalidRequest(`${method}: ${error.message}`, { path: failedPath });
  if (error instanceof ConfinedFsError && code === "ETOOLARGE") {
    const { size = 0, limit = 0 } = error;
    return invalidRequest(`${method}: ${failedPath} is ${mebibytes(size)} MiB; files larger than ${mebibytes(limit)} MiB are not read`, {
      path: failedPath,
      size,
      limit,
    });
  }
  const reason = (failedPath === shownPath ? reasons[code] : undefined) ?? REASONS[code];
  const message = reason ? `${method} failed: ${failedPath} ${reason}` : `${method} failed for ${failedPath}: ${error.message}`;
  return ioFailure(message, { code, path: failedPath });
}

function mebibytes(bytes: number): string {
  return (bytes / (1024 * 1024)).toFixed(bytes % (1024 * 1024) === 0 ? 0 : 1);
}
