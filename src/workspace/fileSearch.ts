import { opendir, type FileHandle } from "node:fs/promises";
import { runSliced, TimeSlice } from "../runtime/timeSlice.js";
import { openChildDirectory } from "./fdWalk.js";
import { fuzzyMatchSteps } from "./fuzzyMatch.js";
import type { FuzzyQuery } from "./fuzzyQuery.js";

/** A file or directory that matched, with its path relative to the searched root ("/"-separated). */
export interface FileSearchMatch {
  readonly path: string;
  readonly fileName: string;
  readonly matchType: "file" | "directory";
  readonly score: number;
  readonly indices: number[];
}

/** Directories never searched: version-control internals and installed dependencies. */
const SKIPPED_DIRECTORIES = new Set([".git", "node_modules"]);

/** Entries looked at per root before the walk stops, so a huge tree cannot make a search unbounded. */
export const MAX_ENTRIES_PER_ROOT = 200_000;

/** Milliseconds a search may match paths before it lets other requests run. */
export const SEARCH_SLICE_MS = 10;

/**
 * Walks the open directory `root` and returns its `limit` best matches for `query`, best first,
 * then by path. Each directory is opened relative to its parent without following symlinks, so
 * the walk stays inside `root` (even if a directory is swapped for a symlink meanwhile) and
 * cannot loop; symlinks are matched but never entered. Matching shares the event loop in slices
 * of {@link SEARCH_SLICE_MS}, even within one path, and stops early, with what it has, once
 * `signal` is aborted.
 */
export async function searchFiles(root: FileHandle, query: FuzzyQuery, limit: number, signal: AbortSignal): Promise<FileSearchMatch[]> {
  const matches: FileSearchMatch[] = [];
  const slice = new TimeSlice(SEARCH_SLICE_MS);
  let seen = 0;
  const exhausted = () => seen > MAX_ENTRIES_PER_ROOT || signal.aborted;
  // Depth first, one directory at a time: open fds stay as few as the tree is deep, and a
  // cancelled search stops within one read.
  const visit = async (dir: FileHandle, relativeDir: string): Promise<void> => {
    const subdirectories: string[] = [];
    try {
      for await (const entry of await opendir(`/proc/self/fd/${dir.fd}`)) {
        // Entries are read ahead in batches and matched with no I/O between them; pausing by time
        // keeps each stretch short whatever the batch size and however long the paths.
        await slice.pause();
        if (++seen > MAX_ENTRIES_PER_ROOT || signal.aborted) break;
        const isDirectory = entry.isDirectory();
        if (isDirectory && SKIPPED_DIRECTORIES.has(entry.name)) continue;
        const relative = relativeDir === "" ? entry.name : `${relativeDir}/${entry.name}`;
        if (isDirectory) subdirectories.push(entry.name);
        const match = await runSliced(fuzzyMatchSteps(query, relative), slice, signal);
        if (!match) continue;
        matches.push({ path: relative, fileName: entry.name, matchType: isDirectory ? "directory" : "file", ...match });
        // Keep memory bounded on broad queries: trim to the best `limit` now and then.
        if (matches.length >= limit * 4) matches.splice(0, matches.length, ...best(matches, limit));
      }
    } catch {
      // Unreadable (permissions, removed meanwhile): search the rest.
    }
    for (const name of subdirectories) {
      if (exhausted()) return;
      const child = await openChildDirectory(dir, name).catch(() => undefined);
      if (!child) continue;
      try {
        await visit(child, relativeDir === "" ? name : `${relativeDir}/${name}`);
      } finally {
        await child.close();
      }
    }
  };
  await visit(root, "");
  return best(matches, limit);
}

/** Best first; equal scores by path, so results are stable. */
export function compareMatches(a: { score: number; path: string }, b: { score: number; path: string }): number {
  return b.score - a.score || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
}

function best(matches: FileSearchMatch[], limit: number): FileSearchMatch[] {
  return matches.sort(compareMatches).slice(0, limit);
}
