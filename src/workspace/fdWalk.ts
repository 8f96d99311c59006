import { constants } from "node:fs";
import { lstat, mkdir, open, readlink, type FileHandle } from "node:fs/promises";
import path from "node:path";
import { ConfinedFsError, MAX_LINK_HOPS, type Access, type Confinement } from "./confinement.js";

const { O_RDONLY, O_WRONLY, O_CREAT, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK, O_NOCTTY } = constants;

/** Linux's O_PATH, which Node does not export: an fd that names a directory without reading it. */
const O_PATH = 0o10000000;

/** Bound on the steps of one lookup: PATH_MAX (4096) allows at most 2048 components, plus hops. */
const MAX_STEPS = 4096 + MAX_LINK_HOPS;

/** Every directory on the way is opened like this: never through a symlink, never blocking. */
const STEP = O_PATH | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK;

/** Opening a file to read: never through a final symlink, never blocking on a FIFO, never a terminal. */
export const READ_FILE = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY;
/** Opening (creating) a file to write, with the same care. */
export const WRITE_FILE = O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY;
/** Opening a directory to list it, never through a symlink. */
export const READ_DIRECTORY = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK;

/**
 * `name` in the directory open as `dir`, spelled so the kernel looks it up from that fd: the
 * /proc/self/fd entry is a magic link to the open directory itself, not to its path, so this is
 * openat(2) semantics, which Node lacks. A final symlink is followed unless the call says not to.
 */
export function at(dir: FileHandle | number, name: string): string {
  return `/proc/self/fd/${typeof dir === "number" ? dir : dir.fd}/${name}`;
}

/** Opens the directory `name` in `dir` to list it; fails (ELOOP, ENOTDIR) rather than follow a symlink. */
export function openChildDirectory(dir: FileHandle, name: string): Promise<FileHandle> {
  return open(at(dir, name), READ_DIRECTORY);
}

/** Where the file or directory open as `handle` is now, as the kernel reports it. */
export async function locationOf(handle: FileHandle, requested: string): Promise<string> {
  const location = await readlink(`/proc/self/fd/${handle.fd}`);
  // Removed while open: the kernel appends this, and nothing can be created in it.
  if (location.endsWith(" (deleted)")) {
    throw new ConfinedFsError("ENOENT", `ENOENT: no such file or directory, ${requested} was removed`, { path: requested });
  }
  return location;
}

/** How {@link locate} treats the path. */
export interface LocateOptions {
  /** Resolve a final symlink (read or write through it) rather than stop at the entry itself. */
  readonly followFinal: boolean;
  /** Create missing directories on the way, each checked for writing first (mkdir -p). */
  readonly createParents?: boolean;
  readonly access: Access;
}

/** A checked entry: its parent directory, open, and its name there. The caller closes `parent`. */
export interface Located {
  readonly parent: FileHandle;
  /** The entry's name in `parent`; "." when the path is the directory `parent` itself. */
  readonly name: string;
  /** The entry's real location: the verified location of `parent` joined with `name`. */
  readonly location: string;
}

/**
 * Finds `requested` (absolute) one component at a time, each opened relative to the directory
 * before it without following symlinks; a symlink met on the way is read and its target walked
 * the same way. The parent reached is verified where the kernel says it is, and that location is
 * checked against `confinement` (null: no check) before anything uses it, so swapping a directory
 * for a symlink after the check cannot redirect the use: the use happens relative to the parent fd.
 */
export async function locate(confinement: Confinement | null, requested: string, options: LocateOptions): Promise<Located> {
  const pending = components(path.resolve(requested));
  let dir = await open("/", STEP);
  // Each directory looked up in must be searchable by the sandbox's processes (when their modes are checked).
  const entered = async (): Promise<void> => {
    if (confinement?.checksModes) confinement.allows(await dir.stat(), "search", requested);
  };
  let where = "/";
  let detours = 0;
  let steps = 0;
  const detour = () => {
    if (++detours > MAX_LINK_HOPS) {
      throw new ConfinedFsError("ELOOP", `ELOOP: too many levels of symbolic links, ${requested}`, { path: requested });
    }
  };
  const follow = async (target: string) => {
    detour();
    pending.unshift(...components(target));
    if (path.isAbsolute(target)) {
      await dir.close();
      dir = await open("/", STEP);
      where = "/";
      await entered();
    }
  };
  let name = ".";
  try {
    await entered();
    for (;;) {
      // A path is at most PATH_MAX long; more steps means directories vanish as fast as we make them.
      if (++steps > MAX_STEPS) throw new ConfinedFsError("ELOOP", `ELOOP: ${requested} keeps changing while it is looked up`, { path: requested });
      name = pending.shift() ?? ".";
      const last = pending.length === 0;
      if (name === "..") {
        const up = await open(at(dir, ".."), STEP);
        await dir.close();
        dir = up;
        where = path.dirname(where);
        await entered();
        continue;
      }
      if (name === "." && !last) continue;
      if (last) {
        const target = options.followFinal && name !== "." ? await linkTarget(dir, name) : null;
        if (target === null) break;
        await follow(target);
        continue;
      }
      try {
        const child = await open(at(dir, name), STEP);
        await dir.close();
        dir = child;
        where = path.join(where, name);
        await entered();
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === "ENOENT" && options.createParents) {
          const created = path.join(await locationOf(dir, requested), name);
          confinement?.check(created, "write", requested);
          if (confinement?.checksModes) confinement.allows(await dir.stat(), "change", requested);
          await mkdir(at(dir, name)).catch(unlessCode("EEXIST"));
          pending.unshift(name);
          continue;
        }
        const target = code === "ENOTDIR" ? await linkTarget(dir, name) : null;
        const now = code === "ENOTDIR" && target === null ? await lstat(at(dir, name)).catch(() => null) : undefined;
        if (target !== null) {
          await follow(target);
        } else if (now === null || now?.isDirectory() || now?.isSymbolicLink()) {
          // A symlink when opened, a directory (or nothing) when read: swapped meanwhile; look again.
          detour();
          pending.unshift(name);
        } else {
          throw error;
        }
      }
    }
    const parentLocation = await locationOf(dir, requested);
    const location = name === "." ? parentLocation : path.join(parentLocation, name);
    confinement?.check(location, options.access, requested);
    return { parent: dir, name, location };
  } catch (error) {
    await dir.close();
    // Outside the roots is the answer that matters, also for a path that does not exist.
    if (!isRefusal(error)) confinement?.check(path.join(where, name, ...pending), options.access, requested);
    throw asConfinedError(error, requested);
  }
}

/** What the symlink `name` in `dir` points to, or null when it is not a symlink (or not there). */
export async function linkTarget(dir: FileHandle, name: string): Promise<string | null> {
  try {
    return await readlink(at(dir, name));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EINVAL" || code === "ENOENT") return null;
    throw error;
  }
}

/** A catch handler that swallows errors with `code` and rethrows the rest. */
export function unlessCode(code: string): (error: NodeJS.ErrnoException) => void {
  return (error) => {
    if (error.code !== code) throw error;
  };
}

/**
 * The error for the caller: a {@link ConfinedFsError} as it is; an errno error re-worded to name
 * `requested` instead of the /proc path it was used through; anything else unchanged.
 */
export function asConfinedError(error: unknown, requested: string): unknown {
  if (error instanceof ConfinedFsError) return error;
  const errno = error as NodeJS.ErrnoException | null;
  if (!(error instanceof Error) || typeof errno?.code !== "string") return error;
  const reason = error.message.split(", ")[0] ?? errno.code;
  const syscall = errno.syscall;
  return new ConfinedFsError(errno.code, `${reason}, ${syscall ? `${syscall} ` : ""}${requested}`, { path: requested, ...(syscall ? { syscall } : {}) });
}

/** Whether `error` is a confinement's refusal (outside the roots, or protected). */
export function isRefusal(error: unknown): error is ConfinedFsError {
  return error instanceof ConfinedFsError && (error.code === "EOUTSIDE" || error.code === "EPROTECTED");
}

function components(absoluteOrRelative: string): string[] {
  return absoluteOrRelative.split("/").filter((part) => part !== "");
}
