import { mkdir, readFile, readlink, realpath, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import type { PatchChunk, PatchOperation } from "./patchParser.js";
import { unifiedDiff } from "./unifiedDiff.js";
import type { WritableRoots } from "../exec/sandbox.js";

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

/** Resolves every path and computes every new content; nothing is written, so a bad patch changes nothing. */
export async function planPatch(operations: readonly PatchOperation[], cwd: string): Promise<PlannedChange[]> {
  const planned: PlannedChange[] = [];
  for (const operation of operations) {
    const file = path.resolve(cwd, operation.path);
    if (operation.type === "add") {
      planned.push({ kind: "add", path: file, movePath: null, before: null, after: operation.content, diff: operation.content });
      continue;
    }
    const before = await readFile(file, "utf8").catch(() => {
      throw new PatchApplyError(`${operation.type === "delete" ? "cannot delete" : "cannot update"} ${file}: the file does not exist`);
    });
    if (operation.type === "delete") {
      planned.push({ kind: "delete", path: file, movePath: null, before, after: null, diff: before });
      continue;
    }
    const after = applyChunks(before, operation.chunks, file);
    const movePath = operation.movePath ? path.resolve(cwd, operation.movePath) : null;
    planned.push({ kind: "update", path: file, movePath, before, after, diff: unifiedDiff(before, after) });
  }
  return planned;
}

/** Writes a planned patch (confinement: where it may land; null for full access). */
export async function commitPatch(changes: readonly PlannedChange[], confinement: WritableRoots | null): Promise<void> {
  void confinement;
  for (const change of changes) {
    if (change.kind === "delete") {
      await rm(change.path);
      continue;
    }
    const target = change.movePath ?? change.path;
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, change.after ?? "");
    if (change.movePath && change.movePath !== change.path) await rm(change.path);
  }
}

/**
 * The real location a path would have: symlinks resolved in its existing part, a dangling symlink
 * included (writing through one creates the file where it points, so that is where the path is).
 */
export async function realLocation(file: string): Promise<string> {
  return resolveReal(path.resolve(file), 0);
}

/** As the kernel's limit on symlinks followed in one lookup. */
const MAX_LINK_HOPS = 40;

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
  for (const normalize of normalizers) {
    const target = wanted.map(normalize);
    const starts = atEnd ? [lines.length - wanted.length] : Array.from({ length: Math.max(0, lines.length - wanted.length - from + 1) }, (_, k) => from + k);
    for (const start of starts) {
      if (start < 0) continue;
      if (target.every((line, k) => normalize(lines[start + k] ?? "\u0000") === line)) return start;
    }
  }
  return -1;
}
