import { readFileSync, realpathSync, statSync } from "node:fs";
import path from "node:path";
import { applyPatch, parsePatch, reversePatch } from "../vendor/diff.js";
import { modesAllow } from "../workspace/confinement.js";
import { isInside } from "../workspace/roots.js";

/** The largest file a scenario keeps; larger ones are left out (the scenario says which). */
export const MAX_FILE_BYTES = 256 * 1024;
/** What a scenario keeps of the workspace in all. */
export const MAX_FILES_BYTES = 2 * 1024 * 1024;

/** A file change as `item/completed` carries it. */
interface Change {
  readonly path: string;
  readonly kind: { readonly type: string };
  readonly diff: string;
}

/** The workspace files a scenario starts from, and those left out (too large, not text, outside). */
export interface RecordedFiles {
  readonly files: Record<string, string>;
  readonly omitted: string[];
}

/**
 * The files a recorded session read (a command's `read` actions) or changed (completed patches),
 * as they were before the session: a changed file is taken back through its patches, newest first,
 * from what is on disk now; an added one did not exist. Paths are relative to `workspace`.
 */
export function recordedFiles(messages: readonly unknown[], workspace: string, hidden: readonly string[] = []): RecordedFiles {
  const read = new Set<string>();
  const changes: Change[] = [];
  for (const message of messages) {
    const item = completedItem(message);
    if (item?.type === "commandExecution") {
      for (const action of (item.commandActions ?? []) as Array<{ type: string; path?: string }>) {
        if (action.type === "read" && action.path) read.add(path.resolve(String(item.cwd ?? workspace), action.path));
      }
    } else if (item?.type === "fileChange" && item.status === "completed") {
      changes.push(...(item.changes as Change[]));
    }
  }
  const before = new Map<string, string | null>();
  const omitted: string[] = [];
  const root = realpathOrNull(workspace) ?? workspace;
  const realHidden = hidden.map((entry) => realpathOrNull(entry) ?? path.resolve(entry));
  const readText = (file: string) => readInside(file, root, realHidden);
  const current = (file: string): string | null => (before.has(file) ? before.get(file)! : readText(file));
  for (const change of [...changes].reverse()) {
    const file = path.resolve(workspace, change.path);
    if (change.kind.type === "add") before.set(file, null);
    // A deleted file is gone, but its directory is not: one that leads out of the workspace (a
    // symlink to ~/.ssh) gave the patch a file that is not the workspace's to record.
    else if (change.kind.type === "delete") {
      before.set(file, inside(path.dirname(file), root) ? change.diff : null);
      if (before.get(file) === null) omitted.push(relative(workspace, file) ?? file);
    }
    else {
      const now = current(file);
      const [patch] = parsePatch(change.diff);
      const undone = now === null || !patch ? false : applyPatch(now, reversePatch(patch));
      if (undone === false) omitted.push(relative(workspace, file) ?? file);
      else before.set(file, undone);
    }
  }
  for (const file of read) if (!before.has(file)) before.set(file, readText(file));
  const files: Record<string, string> = {};
  let total = 0;
  for (const [file, content] of [...before].sort(([a], [b]) => a.localeCompare(b))) {
    const name = relative(workspace, file);
    if (content === null) continue;
    const bytes = Buffer.byteLength(content);
    if (name === null || bytes > MAX_FILE_BYTES || total + bytes > MAX_FILES_BYTES) {
      omitted.push(name ?? file);
      continue;
    }
    total += bytes;
    files[name] = content;
  }
  return { files, omitted: [...new Set(omitted)] };
}

function completedItem(message: unknown): Record<string, any> | null {
  const { method, params } = (message ?? {}) as { method?: string; params?: { item?: Record<string, any> } };
  return method === "item/completed" && params?.item ? params.item : null;
}

/**
 * A file's text, or null when it is missing, too large, not UTF-8, not a regular file (a FIFO
 * would block), or outside the workspace once symlinks are followed: the model made the session's
 * files, and a link it left to `~/.ssh` must not put a key into a scenario meant to be committed.
 */
function readInside(file: string, root: string, hidden: readonly string[] = []): string | null {
  try {
    const real = realpathSync(file);
    if (!isInside(real, root)) return null;
    // Nor what a sandboxed command could not read: the server's own files, and (for a root server,
    // whose capabilities pass them) what file modes keep from the sandbox's uid, on the way and the file.
    if (hidden.some((entry) => isInside(real, entry))) return null;
    for (let dir = path.dirname(real); ; dir = path.dirname(dir)) {
      if (!modesAllow(statSync(dir), "search")) return null;
      if (dir === root || path.dirname(dir) === dir) break;
    }
    const stats = statSync(real);
    if (!stats.isFile() || stats.size > MAX_FILE_BYTES || !modesAllow(stats, "read")) return null;
    const bytes = readFileSync(real);
    const text = bytes.toString("utf8");
    return Buffer.byteLength(text) === bytes.length && !text.includes("\uFFFD") ? text : null;
  } catch {
    return null;
  }
}

/** Whether `dir`, symlinks followed, is `root` or inside it. */
function inside(dir: string, root: string): boolean {
  const real = realpathOrNull(dir);
  return real !== null && isInside(real, root);
}

function realpathOrNull(file: string): string | null {
  try {
    return realpathSync(file);
  } catch {
    return null;
  }
}

/** `file` relative to `workspace`, or null when it is the workspace itself or outside it. */
function relative(workspace: string, file: string): string | null {
  return file !== workspace && isInside(file, workspace) ? path.relative(workspace, file) : null;
}
