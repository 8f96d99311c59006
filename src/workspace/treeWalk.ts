import { closeSync, fstatSync, openSync, opendirSync, readdirSync, type Dir, type Dirent } from "node:fs";
import type { Steps } from "../runtime/timeSlice.js";
import { READ_DIRECTORY } from "./fdWalk.js";

/** Directories never searched: version-control internals and installed dependencies. */
const SKIPPED_DIRECTORIES = new Set([".git", "node_modules"]);

/** Entries looked at per root before the walk stops, so a huge tree cannot make a search unbounded. */
export const MAX_ENTRIES_PER_ROOT = 200_000;

/** Directories deeper than this below a root are not entered: each level holds a descriptor while the walk is below it. */
export const MAX_DEPTH = 512;

/**
 * Directories up to this size (as the file system reports it: ext4 ~4 KiB per ~100 entries, so
 * ~500 entries) are read whole, in one call, well within a slice of a search; bigger ones
 * {@link ENTRIES_PER_READ} entries at a time, so a directory's size bounds neither memory nor the
 * time between two steps.
 */
const WHOLE_DIRECTORY_BYTES = 16 * 1024;

/** Directory entries read per system call from a directory read piecemeal. */
const ENTRIES_PER_READ = 32;

/** A directory of the walk: open as `fd` (closed when done if `owned`), its path from the root, and the subdirectories it has that are still to visit. */
interface Frame {
  readonly fd: number;
  readonly owned: boolean;
  readonly relativeDir: string;
  readonly subdirectories: string[];
  next: number;
}

/**
 * A listing of the walk: entries of one directory (or some of a big one's), as its path from the
 * root ("" for the root itself), and each entry's name and whether it is a directory (1) or not (0).
 * Valid until the walk's next step.
 */
export interface Listing {
  dir: string;
  readonly names: string[];
  readonly kinds: number[];
}

/**
 * Walks the open directory `rootFd` depth first, yielding once per listing (left in `listing`).
 * Each directory is opened relative to its parent without following symlinks, so the walk stays
 * inside the root (even if a directory is swapped for a symlink meanwhile) and cannot loop;
 * symlinks are listed but never entered. Directories are read with synchronous calls between
 * steps: each is one short read of a local directory, and a thread-pool round trip for each would
 * cost more than the read (100,000 files: 60 ms read in line, 300 ms through the pool). An explicit
 * stack rather than recursion: a step costs the same at any depth (nested generators resume
 * through one native frame per level, and a repository 4,000 levels deep overflowed the stack), and
 * one `finally` closes every directory still open. A directory that cannot be opened or read adds
 * nothing; an error that is not the system's is a bug, and ends the walk.
 */
export function* walkListings(rootFd: number, listing: Listing): Steps<void> {
  const frames: Frame[] = [{ fd: rootFd, owned: false, relativeDir: "", subdirectories: [], next: 0 }];
  const walk = { seen: 0 };
  try {
    yield* list(frames[0]!, listing, walk);
    while (frames.length > 0) {
      const frame = frames[frames.length - 1]!;
      if (frame.next === frame.subdirectories.length || walk.seen > MAX_ENTRIES_PER_ROOT || frames.length > MAX_DEPTH) {
        frames.pop();
        if (frame.owned) closeSync(frame.fd);
        continue;
      }
      const name = frame.subdirectories[frame.next++]!;
      let fd: number;
      try {
        fd = openSync(`/proc/self/fd/${frame.fd}/${name}`, READ_DIRECTORY);
      } catch (error) {
        // Gone, or swapped for a symlink, meanwhile: search the rest.
        if (isSystemError(error)) continue;
        throw error;
      }
      const child: Frame = { fd, owned: true, relativeDir: frame.relativeDir === "" ? name : `${frame.relativeDir}/${name}`, subdirectories: [], next: 0 };
      frames.push(child);
      yield* list(child, listing, walk);
    }
  } finally {
    for (const frame of frames) if (frame.owned) closeSync(frame.fd);
  }
}

/** Lists `frame`'s directory into `listing`, noting its subdirectories to visit; yields once per listing. */
function* list(frame: Frame, listing: Listing, walk: { seen: number }): Steps<void> {
  const { names, kinds } = listing;
  listing.dir = frame.relativeDir;
  names.length = 0;
  kinds.length = 0;
  const path = `/proc/self/fd/${frame.fd}`;
  let dir: Dir | undefined;
  try {
    // A Dir object costs more than reading a small directory: those are read in one call.
    if (fstatSync(frame.fd).size <= WHOLE_DIRECTORY_BYTES) {
      for (const entry of readdirSync(path, { withFileTypes: true })) if (!note(frame, entry, listing, walk)) break;
    } else {
      dir = opendirSync(path, { bufferSize: ENTRIES_PER_READ });
      for (let entry = dir.readSync(); entry && note(frame, entry, listing, walk); entry = dir.readSync()) {
        if (names.length < ENTRIES_PER_READ) continue;
        yield;
        names.length = 0;
        kinds.length = 0;
      }
    }
  } catch (error) {
    // Unreadable (permissions, removed meanwhile): search the rest. Anything else is a bug, not a directory to skip.
    if (!isSystemError(error)) throw error;
  } finally {
    dir?.closeSync();
  }
  if (names.length > 0) yield;
}

/** Adds `entry` of `frame`'s directory to `listing` (and to the subdirectories to visit); false once the walk has seen enough. */
function note(frame: Frame, entry: Dirent, listing: Listing, walk: { seen: number }): boolean {
  if (++walk.seen > MAX_ENTRIES_PER_ROOT) return false;
  const isDirectory = entry.isDirectory();
  if (isDirectory && SKIPPED_DIRECTORIES.has(entry.name)) return true;
  // A name that is not UTF-8 arrives with U+FFFD in it: opened by that spelling it would be another directory, or none.
  if (isDirectory && !entry.name.includes("\uFFFD")) frame.subdirectories.push(entry.name);
  listing.names.push(entry.name);
  listing.kinds.push(isDirectory ? 1 : 0);
  return true;
}

/** Whether `error` is the operating system's (an errno code), as opposed to a bug of ours. */
function isSystemError(error: unknown): boolean {
  return typeof (error as NodeJS.ErrnoException | null)?.code === "string";
}
