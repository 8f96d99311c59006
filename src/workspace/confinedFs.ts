import { constants, type Stats } from "node:fs";
import { lstat, mkdir, open, readdir, rename, rmdir, stat, unlink, type FileHandle } from "node:fs/promises";
import path from "node:path";
import { isInside, type WritableRoots } from "./roots.js";
import { copyTree, removeTree } from "./confinedTree.js";
import { ConfinedFsError, Confinement, type Access } from "./confinement.js";
import { asConfinedError, at, locate, READ_DIRECTORY, READ_FILE, unlessCode, WRITE_FILE, type LocateOptions, type Located } from "./fdWalk.js";
import { copyContents, kindOf, notRegular, readAll, readPrefix, readTail, regularFile, tooLarge } from "./regularFiles.js";

/** Times a use retries when the entry it found turns into a symlink before it is opened. */
const SWAP_RETRIES = 8;

/** One entry of a directory listing; a symlink's flags are its target's (false when that is outside or missing). */
export interface DirectoryEntry {
  readonly name: string;
  readonly isDirectory: boolean;
  readonly isFile: boolean;
}

/** An entry's own metadata (lstat) and its target's (stat; the same object when it is no symlink). */
export interface EntryMetadata {
  readonly entry: Stats;
  readonly target: Stats;
}

/**
 * File operations confined to roots minus protected paths, free of check-then-use races: every
 * path component is opened relative to a directory fd already checked (see {@link locate}), files
 * are opened without following a final symlink and without blocking, and only regular files are
 * read or written. Made by {@link ConfinedFs.create}; null confinement checks no location but
 * still refuses FIFOs and devices. Errors are {@link ConfinedFsError}s.
 */
export class ConfinedFs {
  private constructor(private readonly confinement: Confinement | null) {}

  /** A confined filesystem for `rule` (absolute roots and protected paths), or an unconfined one for null. */
  static async create(rule: WritableRoots | null): Promise<ConfinedFs> {
    // Without /proc every lookup would fail as if nothing existed; say what is missing instead.
    await stat("/proc/self/fd").catch(() => {
      throw new ConfinedFsError("ENOSYS", "file access here needs Linux's /proc/self/fd (mount proc at /proc)", { path: "/proc/self/fd" });
    });
    return new ConfinedFs(await Confinement.resolve(rule));
  }

  /**
   * The bytes of a regular file inside the roots; ETOOLARGE when it is over `maxBytes`. `reserve` is
   * told the bytes the read will hold: the size once the file is open and checked, before any byte
   * is read, then each piece read past it (the file grew meanwhile); it may throw to refuse.
   * `tailBytes` reads only the file's last bytes (a log's end), `headBytes` only its first, however large it is.
   */
  async readFile(file: string, options: { maxBytes?: number; tailBytes?: number; headBytes?: number; reserve?: (bytes: number) => void } = {}): Promise<Buffer> {
    return this.withFinal(file, { followFinal: true, access: "read" }, async ({ parent, name, location }) => {
      await this.mayOpen(parent, name, "read", file, location);
      const handle = await openToRead(parent, name, file, location);
      try {
        const info = await regularFile(handle, file, location);
        this.confinement?.allows(info, "read", file);
        if (options.tailBytes !== undefined) {
          options.reserve?.(Math.min(info.size, options.tailBytes));
          return await readTail(handle, info.size, options.tailBytes);
        }
        if (options.headBytes !== undefined) return await readPrefix(handle, options.headBytes);
        const limit = options.maxBytes;
        if (limit !== undefined && info.size > limit) throw tooLarge(file, location, info.size, limit);
        options.reserve?.(info.size);
        return await readAll(handle, info.size, limit, file, location, options.reserve);
      } finally {
        await handle.close();
      }
    });
  }

  /** Creates or replaces a regular file (not its directory); a final symlink is written through if its target is allowed. */
  async writeFile(file: string, data: Uint8Array | string): Promise<void> {
    await this.withFinal(file, { followFinal: true, access: "write" }, async (located) => {
      const { handle } = await openForWriting(located, file, this.confinement);
      try {
        await handle.truncate(0);
        await handle.writeFile(data);
      } finally {
        await handle.close();
      }
    });
  }

  /** Creates a directory; `recursive` creates missing parents too and accepts one that exists. */
  async mkdir(dir: string, options: { recursive: boolean }): Promise<void> {
    const { recursive } = options;
    await this.withFinal(dir, { followFinal: true, access: "write", createParents: recursive }, async ({ parent, name }) => {
      try {
        if (this.confinement?.checksModes && (await lstat(at(parent, name)).catch(() => null)) === null) this.confinement.allows(await parent.stat(), "change", dir);
        await mkdir(at(parent, name));
      } catch (error) {
        if (!recursive || (error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
        const info = await lstat(at(parent, name));
        if (info.isSymbolicLink()) throw new SwappedToLink();
        if (!info.isDirectory()) throw error;
      }
    });
  }

  /**
   * Removes the entry itself (a symlink, never its target); a directory needs `recursive` unless
   * empty, and its tree is walked by fds without following symlinks. `force` ignores a missing entry.
   */
  async remove(target: string, options: { recursive: boolean; force: boolean }): Promise<void> {
    const removing = this.withFinal(target, { followFinal: false, access: "write" }, async ({ parent, name, location }) => {
      const info = await lstat(at(parent, name)).catch((error: NodeJS.ErrnoException) => {
        if (options.force && error.code === "ENOENT") return undefined;
        throw error;
      });
      if (!info) return;
      if (this.confinement?.checksModes) this.confinement.allowsUnlinking(await parent.stat(), info, target);
      if (!info.isDirectory()) {
        await unlink(at(parent, name)).catch(options.force ? unlessCode("ENOENT") : rethrow);
        return;
      }
      this.confinement?.checkTree(location, target);
      if (options.recursive) await removeTree(parent, name, location, this.confinement, target);
      else await rmdir(at(parent, name));
    });
    // Its directory missing too is as gone as can be (but outside the roots is still refused).
    await removing.catch(options.force ? unlessCode("ENOENT") : rethrow);
  }

  /** The entries of a directory inside the roots, sorted by name. */
  async readDirectory(dir: string): Promise<DirectoryEntry[]> {
    const listed = await this.withFinal(dir, { followFinal: true, access: "read" }, async ({ parent, name, location }) => {
      const handle = await openFinal(parent, name, READ_DIRECTORY);
      try {
        if (this.confinement?.checksModes) this.confinement.allows(await handle.stat(), "read", dir);
        return { location, children: await readdir(`/proc/self/fd/${handle.fd}`, { withFileTypes: true }) };
      } finally {
        await handle.close();
      }
    });
    const entries: DirectoryEntry[] = [];
    // One at a time: each symlink is a walk of its own, and thousands at once would run out of fds.
    for (const child of listed.children) {
      if (!child.isSymbolicLink()) {
        entries.push({ name: child.name, isDirectory: child.isDirectory(), isFile: child.isFile() });
        continue;
      }
      // Through the confinement: a link out of the roots says nothing about what is out there.
      const target = await this.stat(path.join(listed.location, child.name)).catch(() => undefined);
      entries.push({ name: child.name, isDirectory: target?.isDirectory() ?? false, isFile: target?.isFile() ?? false });
    }
    return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** The entry's own metadata and, for a symlink, its target's (which must be inside the roots too). */
  async getMetadata(target: string): Promise<EntryMetadata> {
    const entry = await this.withFinal(target, { followFinal: false, access: "read" }, ({ parent, name }) => lstat(at(parent, name)));
    return { entry, target: entry.isSymbolicLink() ? await this.stat(target) : entry };
  }

  /** The metadata of what `target` points to, symlinks followed. */
  async stat(target: string): Promise<Stats> {
    return this.withFinal(target, { followFinal: true, access: "read" }, async ({ parent, name }) => {
      const info = await lstat(at(parent, name));
      if (info.isSymbolicLink()) throw new SwappedToLink();
      return info;
    });
  }

  /**
   * Copies a regular file, or with `recursive` a directory tree (created if missing, merged if
   * there); symlinks inside a tree are copied as symlinks, FIFOs and devices refused.
   */
  async copy(source: string, destination: string, options: { recursive: boolean }): Promise<void> {
    await this.withFinal(source, { followFinal: true, access: "read" }, async ({ parent, name, location }) => {
      const from = await openToRead(parent, name, source, location);
      try {
        const info = await from.stat();
        this.confinement?.allows(info, "read", source);
        if (!info.isDirectory()) {
          await regularFile(from, source, location);
          await this.withFinal(destination, { followFinal: true, access: "write" }, async (located) => {
            const to = await openForWriting(located, destination, this.confinement);
            try {
              // Onto itself: truncating would lose the file, and there is nothing to copy.
              if (to.info.dev === info.dev && to.info.ino === info.ino) return;
              await to.handle.truncate(0);
              await copyContents(from, to.handle, info.mode);
            } finally {
              await to.handle.close();
            }
          });
          return;
        }
        if (!options.recursive) {
          throw new ConfinedFsError("EISDIR", `${source} is a directory; pass recursive: true to copy a directory tree`, { path: source, location });
        }
        await this.mkdir(destination, { recursive: true });
        await this.withFinal(destination, { followFinal: true, access: "write" }, async (into) => {
          if (isInside(into.location, location)) {
            throw new ConfinedFsError("EINVAL", `cannot copy ${source} into itself (${destination})`, { path: destination, location: into.location });
          }
          const to = await openFinal(into.parent, into.name, READ_DIRECTORY);
          try {
            // `from` is the source directory itself, open since it was checked.
            await copyTree(from, to, { confinement: this.confinement, source, destination, location: into.location });
          } finally {
            await to.close();
          }
        });
      } finally {
        await from.close();
      }
    });
  }

  /** Renames an entry (neither a final symlink followed); both places must be writable. */
  async rename(from: string, to: string): Promise<void> {
    await this.withFinal(from, { followFinal: false, access: "write" }, async (source) => {
      this.confinement?.checkTree(source.location, from);
      if (this.confinement?.checksModes) this.confinement.allowsUnlinking(await source.parent.stat(), await lstat(at(source.parent, source.name)), from);
      await this.withFinal(to, { followFinal: false, access: "write" }, async (target) => {
        if (this.confinement?.checksModes) this.confinement.allows(await target.parent.stat(), "change", to);
        await rename(at(source.parent, source.name), at(target.parent, target.name));
      });
    });
  }

  /** Opens a directory inside the roots for listing; the caller closes it. */
  async openDirectory(dir: string): Promise<{ handle: FileHandle; location: string }> {
    return this.withFinal(dir, { followFinal: true, access: "read" }, async ({ parent, name, location }) => ({
      handle: await openFinal(parent, name, READ_DIRECTORY),
      location,
    }));
  }

  /**
   * Where modes are checked by hand, whether the sandbox's processes could open the entry at all,
   * checked before the server opens it (opening is not free: a FIFO's open wakes the other end, a
   * device's runs its driver): a regular file (or directory) it may `want`. Checked again on the
   * open file; a symlink found here was swapped in since the lookup.
   */
  private async mayOpen(parent: FileHandle, name: string, want: "read" | "write", requested: string, location: string): Promise<void> {
    if (!this.confinement?.checksModes) return;
    const info = await lstat(at(parent, name)).catch(() => null);
    if (info !== null) openable(this.confinement, info, want, requested, location);
  }

  /** Whether `location` (a real path) may be used for `access`; throws EOUTSIDE or EPROTECTED otherwise. */
  check(location: string, access: Access, requested: string): void {
    this.confinement?.check(location, access, requested);
  }

  /**
   * Locates `requested`, runs `use` on the checked entry and closes its parent; when the entry
   * turned into a symlink between the check and the use, looks again (a few times).
   */
  private async withFinal<T>(requested: string, options: LocateOptions, use: (located: Located) => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const located = await locate(this.confinement, requested, options);
      try {
        return await use(located);
      } catch (error) {
        if (!(error instanceof SwappedToLink)) throw asConfinedError(error, requested);
        if (attempt >= SWAP_RETRIES) {
          throw new ConfinedFsError("ELOOP", `ELOOP: ${requested} keeps turning into a symlink while it is used`, { path: requested });
        }
      } finally {
        await located.parent.close();
      }
    }
  }
}

/** The final entry became a symlink after {@link locate} looked at it; the use starts over. */
class SwappedToLink extends Error {}

/** Opens the final entry without following it; a symlink there now means it was swapped. */
async function openFinal(parent: FileHandle, name: string, flags: number): Promise<FileHandle> {
  try {
    return await open(at(parent, name), flags);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ELOOP") throw new SwappedToLink();
    throw error;
  }
}

/** Opens the final entry to read (a FIFO opens at once, and is refused once its type is checked). */
async function openToRead(parent: FileHandle, name: string, requested: string, location: string): Promise<FileHandle> {
  return openFinal(parent, name, READ_FILE).catch((error: NodeJS.ErrnoException) => {
    // What opening a socket answers.
    if (error.code === "ENXIO") throw notRegular(requested, location, "a socket");
    throw error;
  });
}

/**
 * Opens (creating) the final entry to write, checked to be a regular file; the caller truncates it.
 * Where modes are checked, a file is created only in a directory the sandbox may change (and never
 * over one that appeared meanwhile), and one that exists only if the sandbox may write it.
 */
async function openForWriting({ parent, name, location }: Located, requested: string, confinement: Confinement | null): Promise<{ handle: FileHandle; info: Stats }> {
  if (name === ".") throw new ConfinedFsError("EISDIR", `EISDIR: illegal operation on a directory, open ${requested}`, { path: requested, location });
  const checked = confinement?.checksModes === true;
  const before = checked ? await lstat(at(parent, name)).catch(() => null) : null;
  const existed = before !== null;
  if (checked && !existed) confinement.allows(await parent.stat(), "change", requested);
  // Nothing the sandbox could not open is opened (a FIFO's open wakes its reader): see ConfinedFs.mayOpen.
  if (before?.isDirectory()) throw new ConfinedFsError("EISDIR", `EISDIR: illegal operation on a directory, open ${requested}`, { path: requested, location });
  if (before) openable(confinement!, before, "write", requested, location);
  const flags = !checked ? WRITE_FILE : existed ? WRITE_FILE & ~constants.O_CREAT : WRITE_FILE | constants.O_EXCL;
  const handle = await openFinal(parent, name, flags).catch((error: NodeJS.ErrnoException) => {
    // What O_NONBLOCK answers for a FIFO nobody reads and for a socket.
    if (error.code === "ENXIO") throw notRegular(requested, location, "a FIFO or socket");
    // Created or removed between the look and the open: look again.
    if (checked && (error.code === "EEXIST" || error.code === "ENOENT")) throw new SwappedToLink();
    throw error;
  });
  try {
    const info = await regularFile(handle, requested, location);
    if (existed) confinement!.allows(info, "write", requested);
    return { handle, info };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/**
 * Throws unless the sandbox's processes could open the entry `info` (its lstat, before the server
 * opens it) for `want`: a symlink here was swapped in since the lookup (look again); a FIFO, socket
 * or device is refused, whose open alone would wake its other end or run its driver.
 */
function openable(confinement: Confinement, info: Stats, want: "read" | "write", requested: string, location: string): void {
  if (info.isSymbolicLink()) throw new SwappedToLink();
  if (!info.isFile() && !info.isDirectory()) throw notRegular(requested, location, kindOf(info));
  confinement.allows(info, want, requested);
}

function rethrow(error: unknown): never {
  throw error;
}

export { ConfinedFsError } from "./confinement.js";
export { isRefusal } from "./fdWalk.js";
