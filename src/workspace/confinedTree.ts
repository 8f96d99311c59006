import { lstat, mkdir, open, readdir, readlink, rmdir, symlink, unlink, type FileHandle } from "node:fs/promises";
import path from "node:path";
import type { Confinement } from "./confinement.js";
import { at, READ_DIRECTORY, READ_FILE, unlessCode, WRITE_FILE } from "./fdWalk.js";
import { copyContents, kindOf, notRegular, regularFile } from "./regularFiles.js";

/**
 * Removes the directory `name` in `parent` with everything in it, walking by fds: each inner
 * directory is opened relative to its parent without following symlinks, so a directory swapped
 * for a symlink mid-walk loses the symlink, never what it points to. `location` is the tree's
 * real location; each entry is checked against `confinement` (a protected path inside is refused).
 */
export async function removeTree(parent: FileHandle, name: string, location: string, confinement: Confinement | null, requested: string): Promise<void> {
  let dir: FileHandle;
  try {
    dir = await open(at(parent, name), READ_DIRECTORY);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return;
    // Swapped for a symlink or a file since it was listed: remove that entry itself.
    if (code === "ELOOP" || code === "ENOTDIR") return unlink(at(parent, name)).catch(unlessCode("ENOENT"));
    throw error;
  }
  try {
    for (const entry of await readdir(`/proc/self/fd/${dir.fd}`, { withFileTypes: true })) {
      const child = path.join(location, entry.name);
      const shown = path.join(requested, entry.name);
      confinement?.check(child, "write", shown);
      if (entry.isDirectory()) {
        await removeTree(dir, entry.name, child, confinement, shown);
        continue;
      }
      await unlink(at(dir, entry.name)).catch(async (error: NodeJS.ErrnoException) => {
        // A directory now (unlink says EISDIR): remove it as one.
        if (error.code === "EISDIR") return removeTree(dir, entry.name, child, confinement, shown);
        if (error.code !== "ENOENT") throw error;
      });
    }
  } finally {
    await dir.close();
  }
  await rmdir(at(parent, name)).catch(unlessCode("ENOENT"));
}

/** Where a tree copy is: the paths as asked (for messages) and the destination's real location. */
export interface CopyPlace {
  readonly confinement: Confinement | null;
  readonly source: string;
  readonly destination: string;
  /** The real location of the destination directory, checked for each entry written. */
  readonly location: string;
}

/**
 * Copies the contents of the open directory `from` into the open directory `to`, by fds as
 * {@link removeTree} walks: directories are created or merged, regular files copied (replacing
 * files there), symlinks copied as symlinks with their target as it is. A FIFO, socket or device
 * in the tree is refused (ENOTREGULAR).
 */
export async function copyTree(from: FileHandle, to: FileHandle, place: CopyPlace): Promise<void> {
  for (const name of await readdir(`/proc/self/fd/${from.fd}`)) {
    const inner: CopyPlace = {
      confinement: place.confinement,
      source: path.join(place.source, name),
      destination: path.join(place.destination, name),
      location: path.join(place.location, name),
    };
    place.confinement?.check(inner.location, "write", inner.destination);
    const info = await lstat(at(from, name));
    if (info.isDirectory()) {
      await mkdir(at(to, name), info.mode & 0o777).catch(unlessCode("EEXIST"));
      const [innerFrom, innerTo] = await Promise.allSettled([open(at(from, name), READ_DIRECTORY), open(at(to, name), READ_DIRECTORY)]);
      try {
        if (innerFrom.status === "rejected") throw innerFrom.reason;
        if (innerTo.status === "rejected") throw innerTo.reason;
        await copyTree(innerFrom.value, innerTo.value, inner);
      } finally {
        for (const opened of [innerFrom, innerTo]) if (opened.status === "fulfilled") await opened.value.close();
      }
    } else if (info.isSymbolicLink()) {
      await copyLink(from, to, name);
    } else if (info.isFile()) {
      await copyFile(from, to, name, inner);
    } else {
      throw notRegular(inner.source, inner.source, kindOf(info));
    }
  }
}

/** Copies the symlink `name` as a symlink, replacing what is at the destination unless that is a directory. */
async function copyLink(from: FileHandle, to: FileHandle, name: string): Promise<void> {
  const target = await readlink(at(from, name));
  try {
    await symlink(target, at(to, name));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST" || (await lstat(at(to, name))).isDirectory()) throw error;
    await unlink(at(to, name));
    await symlink(target, at(to, name));
  }
}

/** Copies the regular file `name`, both ends opened without following symlinks and checked to be regular. */
async function copyFile(from: FileHandle, to: FileHandle, name: string, place: CopyPlace): Promise<void> {
  const source = await open(at(from, name), READ_FILE);
  try {
    const info = await regularFile(source, place.source, place.source);
    const destination = await open(at(to, name), WRITE_FILE, info.mode & 0o777);
    try {
      await regularFile(destination, place.destination, place.location);
      await destination.truncate(0);
      await copyContents(source, destination, info.mode);
    } finally {
      await destination.close();
    }
  } finally {
    await source.close();
  }
}
