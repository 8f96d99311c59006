import { unifiedDiff } from "./unifiedDiff.js";

/** A file as it was before the turn first touched it, and as it is now (null: absent). */
interface FileVersions {
  readonly before: string | null;
  after: string | null;
  /** Its part of the diff, computed once per version (a turn re-renders after every patch). */
  diff?: Promise<string>;
}

/** The aggregated git-style diff of everything a turn's patches changed, for `turn/diff/updated`. */
export class TurnDiff {
  private readonly files = new Map<string, FileVersions>();

  /** Records one file's change (`before` as the patch found it). */
  record(path: string, before: string | null, after: string | null): void {
    const known = this.files.get(path);
    if (!known) this.files.set(path, { before, after });
    else {
      known.after = after;
      known.diff = undefined;
    }
  }

  /** The whole diff, file by file in path order, as the files are when it is called. */
  async render(): Promise<string> {
    const sorted = [...this.files].sort(([a], [b]) => a.localeCompare(b));
    const parts = sorted.map(([path, file]) => (file.diff ??= fileDiff(path, file.before, file.after)));
    return (await Promise.all(parts)).join("");
  }
}

/** One file's part, as `git diff` shows it: no `---`/`+++` lines when there is no hunk (an empty file added or deleted). */
async function fileDiff(path: string, before: string | null, after: string | null): Promise<string> {
  if (before === after) return "";
  const body = await unifiedDiff(before ?? "", after ?? "");
  const header = [`diff --git a${path} b${path}`];
  if (before === null) header.push("new file mode 100644");
  if (after === null) header.push("deleted file mode 100644");
  if (body !== "") header.push(`--- ${before === null ? "/dev/null" : `a${path}`}`, `+++ ${after === null ? "/dev/null" : `b${path}`}`);
  return `${header.join("\n")}\n${body}`;
}
