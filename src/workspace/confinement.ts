import { readFileSync, type Stats } from "node:fs";
import { readlink, realpath } from "node:fs/promises";
import path from "node:path";
import { isInside, type WritableRoots } from "./roots.js";

/** Codes of {@link ConfinedFsError} beyond the operating system's errno codes. */
export type ConfinementCode = "EOUTSIDE" | "EPROTECTED" | "EHIDDEN" | "ENOTREGULAR" | "ETOOLARGE";

/** What a confined operation refused or failed, and where. */
export interface ConfinedFsErrorDetails {
  /** The path as the caller asked for it. */
  readonly path: string;
  /** Where it resolved to (symlinks followed), when known. */
  readonly location?: string;
  /** The roots as given, for EOUTSIDE and EPROTECTED. */
  readonly roots?: readonly string[];
  /** The protected path it fell in, for EPROTECTED. */
  readonly protectedPath?: string;
  /** The file's size and the limit, for ETOOLARGE. */
  readonly size?: number;
  readonly limit?: number;
  /** The system call that failed, for errno codes. */
  readonly syscall?: string;
}

/**
 * An error of a confined file operation: `code` is an errno code (ENOENT, EISDIR, ...) or a
 * {@link ConfinementCode}; the message names the path as asked, where it resolved to and the roots.
 */
export class ConfinedFsError extends Error {
  readonly path: string;
  readonly location: string | undefined;
  readonly roots: readonly string[] | undefined;
  readonly protectedPath: string | undefined;
  readonly size: number | undefined;
  readonly limit: number | undefined;
  readonly syscall: string | undefined;

  constructor(
    readonly code: ConfinementCode | string,
    message: string,
    details: ConfinedFsErrorDetails,
  ) {
    super(message);
    this.name = "ConfinedFsError";
    this.path = details.path;
    this.location = details.location;
    this.roots = details.roots;
    this.protectedPath = details.protectedPath;
    this.size = details.size;
    this.limit = details.limit;
    this.syscall = details.syscall;
  }
}

/** Whether a use reads (inside the roots) or writes (inside the roots and outside protected paths). */
export type Access = "read" | "write";

/** What the sandbox's processes would do with an inode: read or write a file, search or change (add to, remove from) a directory. */
export type Want = "read" | "write" | "search" | "change";
const WANTS: Readonly<Record<Want, number>> = { read: 4, write: 2, search: 1, change: 3 };
const STICKY = 0o1000;
const EUID = process.geteuid?.() ?? -1;
const GROUPS = new Set([process.getegid?.() ?? -1, ...(process.getgroups?.() ?? [])]);
/** Whether the server's capabilities pass file modes (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER: root's, or given to another uid); the sandbox drops them all. */
const PASSES_FILE_MODES = passesFileModes();

function passesFileModes(): boolean {
  try {
    const effective = /^CapEff:\s*([0-9a-f]+)$/m.exec(readFileSync("/proc/self/status", "utf8"))?.[1];
    if (effective !== undefined) return (BigInt(`0x${effective}`) & 0b1110n) !== 0n;
  } catch {
    // No /proc: go by the uid.
  }
  return EUID === 0;
}

/**
 * The rule a confined operation checks the real location of each path against. The roots and
 * protected paths are resolved to real paths once, when it is made: a root swapped for a symlink
 * afterwards does not move the confinement with it.
 */
export class Confinement {
  private constructor(
    /** The roots and protected paths as given (lexically resolved), for messages. */
    readonly given: WritableRoots,
    private readonly realRoots: readonly string[],
    private readonly realProtected: readonly string[],
    private readonly realHidden: readonly string[],
    /** Whether file modes are checked by hand (see {@link allows}). */
    readonly checksModes: boolean,
  ) {}

  /** Resolves `rule` (absolute paths) into a confinement; null means no confinement at all. */
  static async resolve(rule: WritableRoots | null): Promise<Confinement | null> {
    if (!rule) return null;
    const roots = [...new Set(rule.roots.map((root) => path.resolve(root)))];
    const protectedPaths = [...new Set(rule.protectedPaths.map((entry) => path.resolve(entry)))];
    const realRoots = await Promise.all(roots.map(realLocation));
    const realProtected = await bothSpellings(protectedPaths);
    const checksModes = rule.asSandbox === true && PASSES_FILE_MODES;
    return new Confinement({ roots, protectedPaths }, realRoots, realProtected, await bothSpellings(rule.hiddenPaths ?? []), checksModes);
  }

  /** Throws EOUTSIDE or EPROTECTED when `requested`, found at the real `location`, may not be used for `access`. */
  check(location: string, access: Access, requested: string): void {
    const resolves = location === path.resolve(requested) ? "" : ` (it resolves to ${location})`;
    const details = { path: requested, location, roots: this.given.roots };
    if (!this.realRoots.some((root) => isInside(location, root))) {
      const roots = this.given.roots.length > 0 ? this.given.roots.join(", ") : "none";
      throw new ConfinedFsError("EOUTSIDE", `${requested} is outside the roots${resolves}; the roots are: ${roots}`, details);
    }
    if (this.realHidden.some((entry) => isInside(location, entry))) {
      throw new ConfinedFsError("EHIDDEN", `${requested} is one of the server's own files, which no sandbox shows${resolves}`, details);
    }
    if (access === "read") return;
    const protectedPath = this.realProtected.find((entry) => isInside(location, entry));
    if (protectedPath !== undefined) {
      throw new ConfinedFsError("EPROTECTED", `${requested} is inside ${protectedPath}, which stays read-only${resolves}`, {
        ...details,
        protectedPath,
      });
    }
  }

  /**
   * Throws EACCES unless the sandbox's processes may `want` the inode `info` (read or write a file,
   * search or change a directory): by its owner, group and other bits, for this uid and its groups,
   * with no capability (the kernel's rule for them; ACLs are not read). A server with capabilities
   * (root) would pass modes that bind them; one without has the kernel check the same bits itself.
   */
  allows(info: Stats, want: Want, requested: string): void {
    if (!this.checksModes || modesAllow(info, want)) return;
    throw new ConfinedFsError("EACCES", `${requested}: permission denied (the sandbox may not ${want} it)`, { path: requested });
  }

  /**
   * Throws EACCES unless the sandbox's processes may remove or rename `entry` out of the directory
   * `parent`: write and search on it and, when it is sticky (/tmp), own the entry or the directory.
   */
  allowsUnlinking(parent: Stats, entry: Stats, requested: string): void {
    if (!this.checksModes) return;
    this.allows(parent, "change", requested);
    if ((parent.mode & STICKY) !== 0 && entry.uid !== EUID && parent.uid !== EUID) {
      throw new ConfinedFsError("EACCES", `${requested}: permission denied (another user's entry in a sticky directory)`, { path: requested });
    }
  }

  /** Throws EPROTECTED when removing or moving the tree at `location` would take a protected path with it. */
  checkTree(location: string, requested: string): void {
    const protectedPath = this.realProtected.find((entry) => isInside(entry, location));
    if (protectedPath !== undefined) {
      throw new ConfinedFsError("EPROTECTED", `${requested} contains ${protectedPath}, which stays read-only`, {
        path: requested,
        location,
        roots: this.given.roots,
        protectedPath,
      });
    }
  }
}

/**
 * Whether this process's uid and groups, with no capability, may `want` the inode `info` by its
 * owner, group and other bits (ACLs are not read); always true for a server without root's
 * capabilities, which the kernel checks itself.
 */
export function modesAllow(info: Stats, want: Want): boolean {
  if (!PASSES_FILE_MODES) return true;
  const bits = info.uid === EUID ? (info.mode >> 6) & 7 : GROUPS.has(info.gid) ? (info.mode >> 3) & 7 : info.mode & 7;
  const needed = WANTS[want];
  return (bits & needed) === needed;
}

/**
 * The real location a path would have: symlinks resolved in its existing part, a dangling symlink
 * included (writing through one creates the file where it points, so that is where the path is).
 * A check, not a use: confined operations never open what this returns.
 */
export async function realLocation(file: string): Promise<string> {
  return resolveReal(path.resolve(file), 0);
}

/** As the kernel's limit on symlinks followed in one lookup. */
export const MAX_LINK_HOPS = 40;

async function resolveReal(absolute: string, hops: number): Promise<string> {
  try {
    return await realpath(absolute);
  } catch {
    const parent = path.dirname(absolute);
    if (parent === absolute) return absolute;
    const located = path.join(await resolveReal(parent, hops), path.basename(absolute));
    const target = await readlink(located).catch(() => undefined);
    if (target === undefined || hops >= MAX_LINK_HOPS) return located;
    return resolveReal(path.resolve(path.dirname(located), target), hops + 1);
  }
}

/** Both spellings of each path, lexical and real: a path reached by name or through a symlink to it. */
async function bothSpellings(paths: readonly string[]): Promise<string[]> {
  const lexical = paths.map((entry) => path.resolve(entry));
  return [...new Set([...lexical, ...(await Promise.all(lexical.map(realLocation)))])];
}
