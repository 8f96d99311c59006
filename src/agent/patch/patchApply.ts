import { stat } from "node:fs/promises";
import path from "node:path";
import { ConfinedFs, ConfinedFsError } from "../../workspace/confinedFs.js";
import type { WritableRoots } from "../../workspace/roots.js";
import type { EditorFiles } from "../tools/turnEditor.js";
import type { PatchChunk, PatchOperation } from "./patchParser.js";
import { unifiedDiff } from "./unifiedDiff.js";

// A patch edits text a model can read: a file past this size is refused before it is read whole.
const MAX_PATCHED_FILE_BYTES = 16 * 1024 * 1024;

/** One file change of a verified patch, ready to write. Paths are absolute. */
export interface PlannedChange {
  readonly kind: "add" | "delete" | "update";
  readonly path: string;
  readonly movePath: string | null;
  readonly before: string | null;
  readonly after: string | null;
  /** Unified hunks for updates; the content for adds and deletes (as Codex shows them). */
  readonly diff: string;
}

/** A patch that parses but does not apply to the files as they are. */
export class PatchApplyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PatchApplyError";
  }
}

/**
 * Resolves every path and computes every new content; nothing is written, so a bad patch changes
 * nothing. Files are read wherever they are (as the read-only sandbox allows) but only regular
 * files (a FIFO or device would block or never end), and none inside `hidden`: the paths a sandbox
 * masks, whose text a patch's diff would otherwise show. With an `editor`, a file that passes
 * those checks is patched as the editor has it (an unsaved buffer).
 */
export async function planPatch(operations: readonly PatchOperation[], cwd: string, hidden: readonly string[] = [], editor?: EditorFiles): Promise<PlannedChange[]> {
  // Hidden paths mean a sandboxed turn: then only what its processes could read.
  const reader = await ConfinedFs.create(hidden.length === 0 ? null : { roots: ["/"], protectedPaths: [], hiddenPaths: hidden, asSandbox: true });
  const planned: PlannedChange[] = [];
  for (const operation of operations) {
    const file = path.resolve(cwd, operation.path);
    if (operation.type === "add") {
      planned.push({ kind: "add", path: file, movePath: null, before: null, after: operation.content, diff: operation.content });
      continue;
    }
    const onDisk = await readPatched(reader, file, operation.type === "delete" ? "cannot delete" : "cannot update");
    const before = (await editor?.read(file)) ?? onDisk;
    if (operation.type === "delete") {
      planned.push({ kind: "delete", path: file, movePath: null, before, after: null, diff: before });
      continue;
    }
    const after = applyChunks(before, operation.chunks, file);
    const movePath = operation.movePath ? path.resolve(cwd, operation.movePath) : null;
    planned.push({ kind: "update", path: file, movePath, before, after, diff: await unifiedDiff(before, after) });
  }
  return planned;
}

/**
 * Writes a planned patch through the confined filesystem: every write, delete and move happens
 * relative to directories checked against `confinement` (null: full access), so a path that
 * resolves elsewhere by now (a directory swapped for a symlink since the patch was planned) is
 * refused instead of written. Roots may be any list: the caller adds what the user approved.
 */
export async function commitPatch(changes: readonly PlannedChange[], confinement: WritableRoots | null): Promise<void> {
  const files = await ConfinedFs.create(confinement);
  for (const change of changes) {
    try {
      if (change.kind === "delete") {
        await files.remove(change.path, { recursive: false, force: false });
        continue;
      }
      const target = change.movePath ?? change.path;
      // Only a missing directory is made: an approved file outside the roots is a root by itself,
      // its existing directory not (the write is confined again; this only spares a refused mkdir).
      if (!(await stat(path.dirname(target)).catch(() => null))?.isDirectory()) await files.mkdir(path.dirname(target), { recursive: true });
      await files.writeFile(target, change.after ?? "");
      if (change.movePath && change.movePath !== change.path) await files.remove(change.path, { recursive: false, force: false });
    } catch (error) {
      throw refusedChange(error);
    }
  }
}

/** Why a file cannot be patched, by the code its read failed with. */
const UNREADABLE: Readonly<Record<string, string>> = {
  ENOENT: "the file does not exist",
  ENOTREGULAR: "it is not a regular file (FIFOs and devices are not read)",
  ETOOLARGE: `it is larger than ${MAX_PATCHED_FILE_BYTES / (1024 * 1024)} MiB, which patches do not edit`,
  EISDIR: "it is a directory",
  EHIDDEN: "it is one of the server's own files, which no sandbox shows",
  EACCES: "permission denied (the sandbox may not read it)",
};

/** A file's text for planning, or a {@link PatchApplyError} saying why it cannot be read. */
async function readPatched(reader: ConfinedFs, file: string, verb: string): Promise<string> {
  try {
    return (await reader.readFile(file, { maxBytes: MAX_PATCHED_FILE_BYTES })).toString("utf8");
  } catch (error) {
    const code = error instanceof ConfinedFsError ? error.code : "";
    const why = UNREADABLE[code] ?? (error as Error).message;
    throw new PatchApplyError(`${verb} ${file}: ${why}`);
  }
}

/** The model-facing error for a change the confinement refused; other errors as they are. */
function refusedChange(error: unknown): unknown {
  if (!(error instanceof ConfinedFsError)) return error;
  const where = error.location && error.location !== error.path ? ` (to ${error.location})` : "";
  if (error.code === "EOUTSIDE") {
    return new PatchApplyError(
      `${error.path} resolves outside the writable roots${where}; nothing was written there. The writable roots are: ${(error.roots ?? []).join(", ") || "none"}`,
    );
  }
  if (error.code === "EPROTECTED") {
    return new PatchApplyError(`${error.path} resolves into ${error.protectedPath ?? "a protected path"}, which stays read-only${where}; nothing was written there`);
  }
  return error;
}

function applyChunks(content: string, chunks: readonly PatchChunk[], file: string): string {
  const lines = content.split("\n");
  const hadFinalNewline = lines.at(-1) === "";
  if (hadFinalNewline) lines.pop();
  let cursor = 0;
  for (const chunk of chunks) {
    if (chunk.anchor !== null) {
      const anchorAt = findSequence(lines, [chunk.anchor], cursor, false);
      if (anchorAt === -1) throw new PatchApplyError(`cannot update ${file}: context line '${chunk.anchor}' not found`);
      cursor = anchorAt + 1;
    }
    if (chunk.oldLines.length === 0) {
      const at = chunk.atEndOfFile ? lines.length : cursor;
      lines.splice(at, 0, ...chunk.newLines);
      cursor = at + chunk.newLines.length;
      continue;
    }
    const at = findSequence(lines, chunk.oldLines, cursor, chunk.atEndOfFile);
    if (at === -1) {
      throw new PatchApplyError(`cannot update ${file}: these lines were not found:\n${chunk.oldLines.join("\n")}`);
    }
    lines.splice(at, chunk.oldLines.length, ...chunk.newLines);
    cursor = at + chunk.newLines.length;
  }
  return lines.join("\n") + (hadFinalNewline || lines.length > 0 ? "\n" : "");
}

/** Where `wanted` starts in `lines` at or after `from`: exact first, then ignoring trailing, then all surrounding whitespace. */
function findSequence(lines: readonly string[], wanted: readonly string[], from: number, atEnd: boolean): number {
  const normalizers = [(line: string) => line, (line: string) => line.trimEnd(), (line: string) => line.trim()];
  // Candidate starts are walked, not listed: a patch of many hunks on a long file searches from
  // each hunk's cursor, and a list per search cost the file's length every time.
  const [first, last] = atEnd ? [lines.length - wanted.length, lines.length - wanted.length] : [from, lines.length - wanted.length];
  for (const normalize of normalizers) {
    const target = wanted.map(normalize);
    for (let start = Math.max(0, first); start <= last; start++) {
      if (target.every((line, k) => normalize(lines[start + k] ?? "\u0000") === line)) return start;
    }
  }
  return -1;
}
