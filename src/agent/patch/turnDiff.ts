import { unifiedDiff } from "./unifiedDiff.js";

/** A file as it was before the turn first touched it, and as it is now (null: absent). */
interface FileVersions {
  readonly before: string | null;
  after: string | null;
}

/** The aggregated git-style diff of everything a turn's patches changed, for `turn/diff/updated`. */
export class TurnDiff {
  private readonly files = new Map<string, FileVersions>();

  /** Records one file's change (`before` as the patch found it). */
  record(path: string, before: string | null, after: string | null): void {
    const known = this.files.get(path);
    if (known) known.after = after;
    else this.files.set(path, { before, after });
  }

  /** The whole diff, file by file in path order. */
  render(): string {
    const parts: string[] = [];
    for (const [path, { before, after }] of [...this.files].sort(([a], [b]) => a.localeCompare(b))) {
      if (before === after) continue;
      const body = unifiedDiff(before ?? "", after ?? "");
      const header = [`diff --git a${path} b${path}`];
      if (before === null) header.push("new file mode 100644");
      if (after === null) header.push("deleted file mode 100644");
      header.push(`--- ${before === null ? "/dev/null" : `a${path}`}`, `+++ ${after === null ? "/dev/null" : `b${path}`}`);
      parts.push(`${header.join("\n")}\n${body}`);
    }
    return parts.join("");
  }
}
