/** One change in an update hunk: lines to find (context and removed) and what replaces them. */
export interface PatchChunk {
  /** The `@@ <context>` line to find first, if given. */
  readonly anchor: string | null;
  readonly oldLines: readonly string[];
  readonly newLines: readonly string[];
  /** The chunk ends at the end of the file (`*** End of File`). */
  readonly atEndOfFile: boolean;
}

/** One file operation of a patch. */
export type PatchOperation =
  | { readonly type: "add"; readonly path: string; readonly content: string }
  | { readonly type: "delete"; readonly path: string }
  | { readonly type: "update"; readonly path: string; readonly movePath: string | null; readonly chunks: readonly PatchChunk[] };

/** A patch that does not follow the grammar; the message names the line. */
export class PatchSyntaxError extends Error {
  constructor(message: string, line: number) {
    super(`invalid patch: line ${line}: ${message}`);
    this.name = "PatchSyntaxError";
  }
}

const BEGIN = "*** Begin Patch";
const END = "*** End Patch";
const ADD = "*** Add File: ";
const DELETE = "*** Delete File: ";
const UPDATE = "*** Update File: ";
const MOVE = "*** Move to: ";
const EOF_MARK = "*** End of File";

/** Parses Codex's patch format (`*** Begin Patch` … `*** End Patch`). */
export function parsePatch(text: string): PatchOperation[] {
  const lines = text.replace(/\r\n/g, "\n").trim().split("\n");
  if (lines[0]?.trim() !== BEGIN) throw new PatchSyntaxError(`the first line must be '${BEGIN}'`, 1);
  if (lines.at(-1)?.trim() !== END) throw new PatchSyntaxError(`the last line must be '${END}'`, lines.length);
  const operations: PatchOperation[] = [];
  let i = 1;
  const last = lines.length - 1;
  while (i < last) {
    const line = lines[i]!;
    if (line.startsWith(ADD)) {
      const content: string[] = [];
      for (i++; i < last && !lines[i]!.startsWith("*** "); i++) {
        if (!lines[i]!.startsWith("+")) throw new PatchSyntaxError("lines of an added file must start with '+'", i + 1);
        content.push(lines[i]!.slice(1));
      }
      operations.push({ type: "add", path: pathOf(line, ADD, i), content: content.length > 0 ? `${content.join("\n")}\n` : "" });
    } else if (line.startsWith(DELETE)) {
      operations.push({ type: "delete", path: pathOf(line, DELETE, i + 1) });
      i++;
    } else if (line.startsWith(UPDATE)) {
      const path = pathOf(line, UPDATE, i + 1);
      i++;
      let movePath: string | null = null;
      if (lines[i]?.startsWith(MOVE)) movePath = pathOf(lines[i++]!, MOVE, i);
      const chunks: PatchChunk[] = [];
      while (i < last && !isFileHeader(lines[i]!)) {
        let anchor: string | null = null;
        if (lines[i]!.startsWith("@@")) {
          anchor = lines[i]!.slice(2).trim() || null;
          i++;
        } else if (chunks.length > 0) {
          throw new PatchSyntaxError("expected '@@' to start the next change", i + 1);
        }
        const oldLines: string[] = [];
        const newLines: string[] = [];
        let atEndOfFile = false;
        for (; i < last && !lines[i]!.startsWith("@@") && !isFileHeader(lines[i]!); i++) {
          const body = lines[i]!;
          if (body === EOF_MARK) {
            atEndOfFile = true;
            i++;
            break;
          }
          const marker = body[0] ?? " ";
          if (marker === " " || body === "") {
            oldLines.push(body.slice(1));
            newLines.push(body.slice(1));
          } else if (marker === "-") {
            oldLines.push(body.slice(1));
          } else if (marker === "+") {
            newLines.push(body.slice(1));
          } else {
            throw new PatchSyntaxError(`unexpected line in an update: '${body}' (lines start with ' ', '-' or '+')`, i + 1);
          }
        }
        if (oldLines.length === 0 && newLines.length === 0) throw new PatchSyntaxError("an empty change", i);
        chunks.push({ anchor, oldLines, newLines, atEndOfFile });
      }
      if (chunks.length === 0 && movePath === null) throw new PatchSyntaxError(`no changes for '${path}'`, i);
      operations.push({ type: "update", path, movePath, chunks });
    } else {
      throw new PatchSyntaxError(`expected a file operation ('*** Add File:', '*** Delete File:' or '*** Update File:'), found '${line}'`, i + 1);
    }
  }
  if (operations.length === 0) throw new PatchSyntaxError("the patch changes no file", 2);
  return operations;
}

function isFileHeader(line: string): boolean {
  return line.startsWith(ADD) || line.startsWith(DELETE) || line.startsWith(UPDATE);
}

function pathOf(line: string, prefix: string, lineNumber: number): string {
  const path = line.slice(prefix.length).trim();
  if (!path) throw new PatchSyntaxError("missing file path", lineNumber);
  return path;
}

/**
 * The patch text of a shell script of the form `apply_patch <<'EOF' … EOF` (optionally after
 * `cd DIR &&`, DIR a plain word: quotes or expansions would mean something else to bash), or null.
 */
export function heredocPatch(script: string): { patch: string; cd: string | null } | null {
  const match = /^\s*(?:cd\s+([^\s'"$`\\;&|<>(){}*?~!#]+)\s*&&\s*)?(?:apply_patch|applypatch)\s*<<-?\s*(['"]?)([A-Za-z_][A-Za-z0-9_]*)\2\s*\n([\s\S]*?)\n\3\s*$/.exec(script);
  if (!match) return null;
  return { patch: match[4]!, cd: match[1] ?? null };
}
