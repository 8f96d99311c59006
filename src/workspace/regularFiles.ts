import { constants, type Stats } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import { ConfinedFsError } from "./confinement.js";

/**
 * The metadata of the open file when it is a regular file; EISDIR for a directory, ENOTREGULAR
 * for anything else (a FIFO or device would block Node's I/O threads or never end).
 */
export async function regularFile(handle: FileHandle, requested: string, location: string): Promise<Stats> {
  const info = await handle.stat();
  if (info.isFile()) return info;
  if (info.isDirectory()) throw new ConfinedFsError("EISDIR", `EISDIR: illegal operation on a directory, ${requested}`, { path: requested, location });
  throw notRegular(requested, location, kindOf(info));
}

/**
 * Reads a file that is not under a confinement (a repository's AGENTS.md or SKILL.md, another
 * agent's settings): symlinks are followed, but it must end in a regular file of at most
 * `maxBytes`. Opened without blocking, so a FIFO or device is refused instead of pinning an I/O thread.
 */
export async function readRegularFile(file: string, maxBytes: number, options: { truncate?: boolean } = {}): Promise<Buffer> {
  const handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY).catch((error: NodeJS.ErrnoException) => {
    // A socket cannot be opened at all (ENXIO); a FIFO opens at once without blocking, and is refused below.
    if (error.code === "ENXIO") throw notRegular(file, file, "a socket");
    throw error;
  });
  try {
    const info = await regularFile(handle, file, file);
    if (options.truncate) return await readPrefix(handle, maxBytes);
    if (info.size > maxBytes) throw tooLarge(file, file, info.size, maxBytes);
    return await readAll(handle, info.size, maxBytes, file, file);
  } finally {
    await handle.close();
  }
}

/** The last `bytes` bytes of an open file of `size` bytes (fewer when it shrank meanwhile). */
export async function readTail(handle: FileHandle, size: number, bytes: number): Promise<Buffer> {
  const buffer = Buffer.alloc(Math.min(size, bytes));
  const start = size - buffer.length;
  let filled = 0;
  while (filled < buffer.length) {
    const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, start + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}

/** The first `maxBytes` bytes of an open file (fewer when it is shorter). */
/** The first `maxBytes` bytes of an open file (fewer when it is shorter). */
export async function readPrefix(handle: FileHandle, maxBytes: number): Promise<Buffer> {
  const buffer = Buffer.alloc(maxBytes);
  let filled = 0;
  while (filled < maxBytes) {
    const { bytesRead } = await handle.read(buffer, filled, maxBytes - filled, null);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}

/** Bytes one read asks for: reads run on the I/O threads, a chunk at a time. */
const READ_CHUNK = 16 * 1024 * 1024;

/**
 * Reads an open file to its end, failing with ETOOLARGE past `limit` bytes (it may grow after `size`
 * was read); `reserve` is told each piece read past `size` before it is kept, and may throw to refuse.
 */
export async function readAll(
  handle: FileHandle,
  size: number,
  limit: number | undefined,
  requested: string,
  location: string,
  reserve?: (bytes: number) => void,
): Promise<Buffer> {
  // Read in place into one buffer of the size the file had: joining the chunks of a 60 MB file
  // would copy it whole, holding the event loop ~50 ms.
  const whole = Buffer.allocUnsafe(size);
  let total = 0;
  while (total < size) {
    const { bytesRead } = await handle.read(whole, total, Math.min(size - total, READ_CHUNK), null);
    if (bytesRead === 0) return whole.subarray(0, total);
    total += bytesRead;
  }
  // The file grew since it was opened: the rest in chunks.
  const chunks = [whole];
  for (;;) {
    const chunk = Buffer.allocUnsafe(64 * 1024);
    const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
    if (bytesRead === 0) return chunks.length === 1 ? whole : Buffer.concat(chunks, total);
    total += bytesRead;
    if (limit !== undefined && total > limit) throw tooLarge(requested, location, total, limit);
    reserve?.(bytesRead);
    chunks.push(chunk.subarray(0, bytesRead));
  }
}

/** Copies the rest of `from` into `to` a chunk at a time, then gives `to` the permission bits `mode`. */
export async function copyContents(from: FileHandle, to: FileHandle, mode: number): Promise<void> {
  const chunk = Buffer.allocUnsafe(1024 * 1024);
  for (;;) {
    const { bytesRead } = await from.read(chunk, 0, chunk.length, null);
    if (bytesRead === 0) break;
    let written = 0;
    while (written < bytesRead) written += (await to.write(chunk, written, bytesRead - written, null)).bytesWritten;
  }
  await to.chmod(mode & 0o777);
}

/** ENOTREGULAR for `requested`, which is `kind` ("a FIFO"). */
export function notRegular(requested: string, location: string, kind: string): ConfinedFsError {
  return new ConfinedFsError("ENOTREGULAR", `${requested} is not a regular file (it is ${kind})`, { path: requested, location });
}

/** ETOOLARGE for `requested`, of `size` bytes where at most `limit` are read. */
export function tooLarge(requested: string, location: string, size: number, limit: number): ConfinedFsError {
  return new ConfinedFsError("ETOOLARGE", `${requested} is ${size} bytes, more than the ${limit} read at most`, { path: requested, location, size, limit });
}

/** How a file that is not regular is named in messages. */
export function kindOf(info: Stats): string {
  if (info.isFIFO()) return "a FIFO";
  if (info.isCharacterDevice() || info.isBlockDevice()) return "a device";
  if (info.isSocket()) return "a socket";
  if (info.isSymbolicLink()) return "a symlink";
  return "neither a file nor a directory";
}
