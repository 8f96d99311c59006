/**
 * The mount points bubblewrap creates on the host for protected paths that did not exist (an empty
 * `.git`, `.codex`…): each is counted while sandboxes use it and removed (if still empty) when the
 * last one exits, so a workspace is left as it was. Each one ever created is also listed in a file
 * of this server's in its private directory: a later server removes what a crashed one left, and
 * no server removes one that another live server (with the same home) lists, since removing a
 * mount point on the host unmounts it in every sandbox.
 */
import { appendFileSync, readdirSync, readFileSync, realpathSync, rmdirSync, rmSync } from "node:fs";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { isProcessAlive } from "../../runtime/processAlive.js";

/** The mount points in use, counted per sandbox using each. */
export class MountPoints {
  private readonly users = new Map<string, number>();
  /** Where each mount point's parent really was when a sandbox first used it. */
  private readonly parents = new Map<string, string | null>();
  private readonly listed = new Set<string>();
  private readonly file: string;
  private swept = false;

  constructor(private readonly dir: string) {
    this.file = path.join(dir, `mountpoints-${process.pid}-${randomUUID()}`);
  }

  /** Counts a sandbox about to start with these mount points; call {@link release} once it exited. */
  acquire(points: readonly string[]): void {
    this.sweepOnce();
    for (const point of points) {
      this.users.set(point, (this.users.get(point) ?? 0) + 1);
      if (!this.parents.has(point)) this.parents.set(point, realParent(point));
      if (!this.listed.has(point)) {
        this.listed.add(point);
        appendFileSync(this.file, `${point}\0`, { mode: 0o600 });
      }
    }
  }

  /** A sandbox exited: removes each of its mount points no other sandbox uses, if it is still an empty directory. */
  release(points: readonly string[]): void {
    for (const point of points) {
      const left = (this.users.get(point) ?? 1) - 1;
      if (left > 0) {
        this.users.set(point, left);
        continue;
      }
      this.users.delete(point);
      const parent = this.parents.get(point) ?? null;
      this.parents.delete(point);
      // Only where it was made: a directory on the way swapped for a symlink since then leads elsewhere.
      if (parent !== null && realParent(point) === parent && !this.othersUse().has(point)) removeIfEmpty(path.join(parent, path.basename(point)));
    }
  }

  /** At shutdown: what no sandbox uses any more is gone already; forget the list. */
  close(): void {
    rmSync(this.file, { force: true });
  }

  /** Removes the mount points that servers which are gone left behind. */
  private sweepOnce(): void {
    if (this.swept) return;
    this.swept = true;
    const inUse = this.othersUse();
    for (const { file, live, points } of this.lists()) {
      if (live) continue;
      for (const point of points) if (!inUse.has(point)) removeIfEmpty(point);
      rmSync(file, { force: true });
    }
  }

  /** The mount points other live servers sharing this directory list. */
  private othersUse(): Set<string> {
    return new Set(this.lists().flatMap((list) => (list.live && list.file !== this.file ? list.points : [])));
  }

  /** Every server's list in the directory, and whether that server is still running. */
  private lists(): { file: string; live: boolean; points: string[] }[] {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return [];
    }
    return names.flatMap((name) => {
      const pid = Number(/^mountpoints-(\d+)-/.exec(name)?.[1]);
      if (!Number.isInteger(pid) || pid <= 0) return [];
      const file = path.join(this.dir, name);
      try {
        return [{ file, live: isProcessAlive(pid), points: readFileSync(file, "utf8").split("\0").filter(Boolean) }];
      } catch {
        return [];
      }
    });
  }
}

/** The real path of `point`'s directory, or null when it is gone. */
function realParent(point: string): string | null {
  try {
    return realpathSync(path.dirname(point));
  } catch {
    return null;
  }
}

/** rmdir: only an empty directory goes; anything else (the user's own `git init` since) stays. */
function removeIfEmpty(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    // Not empty, not a directory, or gone.
  }
}
