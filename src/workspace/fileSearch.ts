import type { FileHandle } from "node:fs/promises";
import { runSliced, TimeSlice, type Steps } from "../runtime/timeSlice.js";
import { FuzzyMatcher, NO_MATCH } from "./fuzzyMatch.js";
import type { FuzzyQuery } from "./fuzzyQuery.js";
import { walkListings, type Listing } from "./treeWalk.js";

/** A file or directory that matched, with its path relative to the searched root ("/"-separated). */
export interface FileSearchMatch {
  readonly path: string;
  readonly fileName: string;
  readonly matchType: "file" | "directory";
  readonly score: number;
  readonly indices: number[];
}

/** Milliseconds a search may walk and match before it lets other requests run. */
export const SEARCH_SLICE_MS = 1;

/** Entries of a listing matched between two checks of the time slice: a check costs about as much as a match. */
const ENTRIES_PER_STEP = 16;

/**
 * Walks the open directory `root` ({@link walkListings}: it stays inside `root`) and returns its
 * `limit` best matches for `query`, best first, then by path; nothing once `signal` is aborted.
 * Walking and matching share the event loop in slices of {@link SEARCH_SLICE_MS}, even within
 * one path. Each entry is matched as its directory and its name: the directory's indexing is
 * shared by its entries, and a path is built only for a match that may make the best.
 */
export async function searchFiles(root: FileHandle, query: FuzzyQuery, limit: number, signal: AbortSignal): Promise<FileSearchMatch[]> {
  return (await runSliced(searchSteps(root.fd, new SearchMatches(query, limit)), new TimeSlice(SEARCH_SLICE_MS), signal)) ?? [];
}

/** The search as steps: a listing, then its entries a few at a time. */
function* searchSteps(rootFd: number, matches: SearchMatches): Steps<FileSearchMatch[]> {
  const listing: Listing = { dir: "", names: [], kinds: [] };
  const listings = walkListings(rootFd, listing);
  try {
    for (let step = listings.next(); !step.done; step = listings.next()) yield* matches.listingSteps(listing);
    return matches.best();
  } finally {
    // Closes the directories still open when the search stops early.
    listings.return();
  }
}

/** The matcher of a search and the best matches it found so far. */
class SearchMatches {
  private readonly matcher: FuzzyMatcher;
  private readonly kept: BestMatches;

  constructor(query: FuzzyQuery, limit: number) {
    this.matcher = new FuzzyMatcher(query);
    this.kept = new BestMatches(limit);
  }

  /** Matches the entries of `listing`. */
  *listingSteps(listing: Listing): Steps<void> {
    const { matcher } = this;
    const { dir, names, kinds } = listing;
    for (let i = 0; i < names.length; i++) {
      const name = names[i]!;
      if (matcher.yieldsWithinPath) {
        yield;
        this.offer(dir, name, kinds[i] === 1, yield* matcher.steps(dir, name));
      } else {
        if (i % ENTRIES_PER_STEP === 0) yield;
        this.offer(dir, name, kinds[i] === 1, matcher.match(dir, name));
      }
    }
  }

  best(): FileSearchMatch[] {
    return this.kept.best();
  }

  /** Keeps the entry `name` in `dir` if its `score` (from {@link matcher}, just now) may make the best. */
  private offer(dir: string, name: string, isDirectory: boolean, score: number): void {
    if (score === NO_MATCH || !this.kept.wants(score, dir, name)) return;
    const path = dir === "" ? name : `${dir}/${name}`;
    this.kept.add({ path, fileName: name, matchType: isDirectory ? "directory" : "file", score, indices: this.matcher.indices() });
  }
}

/** The best `limit` matches so far, in memory bounded by the limit however broad the query. */
class BestMatches {
  private matches: FileSearchMatch[] = [];
  /** The worst match kept at the last trim: one no better can never make the best `limit`. */
  private worst: FileSearchMatch | undefined;

  constructor(private readonly limit: number) {}

  /** Whether a match of `score` at `name` in `dir` could still make the best `limit`, before it is built. */
  wants(score: number, dir: string, name: string): boolean {
    // compareMatches({ score, path }, worst) < 0, without an object or a path per entry.
    const worst = this.worst;
    return worst === undefined || score > worst.score || (score === worst.score && joinedBefore(dir, name, worst.path));
  }

  /** Adds a match that {@link wants} wanted. */
  add(match: FileSearchMatch): void {
    this.matches.push(match);
    if (this.matches.length < this.limit * 4) return;
    this.matches = this.best();
    this.worst = this.matches[this.matches.length - 1];
  }

  /** The best `limit`, best first. */
  best(): FileSearchMatch[] {
    return this.matches.sort(compareMatches).slice(0, this.limit);
  }
}

/** Whether the path `name` in `dir` sorts before `path` (as `<` compares strings: by UTF-16 unit), without building it: a search asks for every entry whose score ties the worst it keeps. */
export function joinedBefore(dir: string, name: string, path: string): boolean {
  if (dir === "") return name < path;
  // Unless `dir` begins `path`, they differ within `dir` (or `path` is shorter): `dir` decides.
  if (!path.startsWith(dir)) return dir < path;
  if (path.length === dir.length) return false;
  const separator = path.charCodeAt(dir.length);
  if (separator !== 0x2f) return 0x2f < separator;
  for (let i = 0, j = dir.length + 1; i < name.length; i++, j++) {
    if (j === path.length) return false;
    const ours = name.charCodeAt(i);
    const theirs = path.charCodeAt(j);
    if (ours !== theirs) return ours < theirs;
  }
  return name.length + dir.length + 1 < path.length;
}

/** Best first; equal scores by path, so results are stable. */
export function compareMatches(a: { score: number; path: string }, b: { score: number; path: string }): number {
  return b.score - a.score || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
}
