import { patch } from "../vendor/tomlPatch.js";
import { diffArrays } from "../vendor/diff.js";
import { classifyLines, type TomlLine } from "./tomlLines.js";

/**
 * `text` patched by toml-patch to read as `updated`, with two of its habits undone so that only
 * the lines it writes change:
 * - It counts the comments and blank lines above a `[table]` header as the end of the table
 *   before, so it would add that table's new keys under them and drop them with its last
 *   `[[array]]` entry. Here they are taken out before patching and put back above their header
 *   (with the header when it goes, as toml_edit does, but for a part set off by a blank line).
 * - It re-aligns the trailing comments of neighbouring lines, written or not: the lines it did
 *   not write are put back as they were, and a written line keeps the spaces it had before its
 *   comment.
 * `sections` (TOML text) go after the rest, a blank line apart, but before the comments closing the file.
 */
export function patchKeepingLayout(text: string, updated: Record<string, unknown>, sections = ""): string {
  // toml-patch writes the file's own line endings; splitting on them leaves no `\r` in a line.
  const newline = text.includes("\r\n") ? "\r\n" : "\n";
  const { lines, endsWithNewline } = splitLines(text, newline);
  const info = classifyLines(lines);
  const { leads, tail, kept } = detachLeads(lines, info);
  const gaps = commentGaps(lines, info);
  const patched = splitLines(patch(kept.map((i) => lines[i]).join(newline) + (endsWithNewline ? newline : ""), updated), newline);
  const patchedInfo = classifyLines(patched.lines);
  const changes = diffArrays(
    kept.map((i) => layoutKey(lines[i]!, info[i]!)),
    patched.lines.map((line, i) => layoutKey(line, patchedInfo[i]!)),
  );
  // A line both have is the file's own, spacing and all; one only toml-patch has is a write; one
  // only the file has is gone (but for what stays of a removed header's lead).
  const result: string[] = [];
  // Blank lines toml-patch added where a put-back lead brings its own: one set is enough.
  let addedBlanks = 0;
  let from = 0;
  let to = 0;
  for (const change of changes) {
    for (let n = 0; n < change.count; n++) {
      if (change.added) {
        const line = withGap(patched.lines[to]!, patchedInfo[to++]!, gaps);
        addedBlanks = line.trim() === "" ? addedBlanks + 1 : 0;
        result.push(line);
        continue;
      }
      const index = kept[from++]!;
      const lead = leads.get(index) ?? [];
      const put = change.removed ? detachedPart(lead) : lead;
      if (put.length > 0 && put[0]!.trim() === "") result.splice(result.length - addedBlanks, addedBlanks);
      result.push(...put);
      addedBlanks = 0;
      if (change.removed) continue;
      to++;
      result.push(lines[index]!);
    }
  }
  const added = splitLines(sections, "\n").lines;
  if (added.length > 0) {
    if (result.length > 0 && result.at(-1)!.trim() !== "") result.push("");
    result.push(...added);
    if (tail.length > 0 && tail[0]!.trim() !== "") result.push("");
  }
  result.push(...tail);
  return result.join(newline) + (text === "" || endsWithNewline ? newline : "");
}

/** The lines of a text, and whether it ended with a newline. */
function splitLines(text: string, newline: string): { lines: string[]; endsWithNewline: boolean } {
  const lines = text === "" ? [] : text.split(newline);
  const endsWithNewline = lines.at(-1) === "";
  if (endsWithNewline) lines.pop();
  return { lines, endsWithNewline };
}

/**
 * The comment and blank lines above each header (by the header's line index), those at the end of
 * the file, and the indexes of the lines left. The comments opening a file stay where they are,
 * but for those right above its first header.
 */
function detachLeads(lines: readonly string[], info: readonly TomlLine[]): { leads: Map<number, string[]>; tail: string[]; kept: number[] } {
  const loose = (i: number) => info[i]!.kind === "comment" || info[i]!.kind === "blank";
  const leads = new Map<number, string[]>();
  const detached = new Set<number>();
  let sawContent = false;
  for (let i = 0; i < lines.length; i++) {
    if (info[i]!.kind !== "header") {
      sawContent ||= !loose(i);
      continue;
    }
    let start = i;
    while (start > 0 && loose(start - 1)) start--;
    if (!sawContent) {
      const lastBlank = lines.slice(start, i).findLastIndex((line) => line.trim() === "");
      start += lastBlank + 1;
    }
    leads.set(i, lines.slice(start, i));
    for (let j = start; j < i; j++) detached.add(j);
    sawContent = true;
  }
  let tailStart = lines.length;
  while (sawContent && tailStart > 0 && loose(tailStart - 1)) tailStart--;
  for (let j = tailStart; j < lines.length; j++) detached.add(j);
  const kept = lines.map((_, i) => i).filter((i) => !detached.has(i));
  return { leads, tail: lines.slice(tailStart), kept };
}

/** What stays of a removed header's lead: the comments set off from it by a blank line. */
function detachedPart(lead: readonly string[]): string[] {
  const lastBlank = lead.findLastIndex((line) => line.trim() === "");
  const part = lead.slice(0, Math.max(lastBlank, 0));
  return part.some((line) => line.trim() !== "") ? part : [];
}

/** The spaces before each trailing comment of the file, by the comment's text, for those found once. */
function commentGaps(lines: readonly string[], info: readonly TomlLine[]): Map<string, string | null> {
  const gaps = new Map<string, string | null>();
  lines.forEach((line, i) => {
    const at = info[i]!.commentAt;
    if (at === null || info[i]!.kind === "comment") return;
    const comment = line.slice(at);
    gaps.set(comment, gaps.has(comment) ? null : line.slice(line.slice(0, at).trimEnd().length, at));
  });
  return gaps;
}

/** A written line with the spaces its comment had in the file. */
function withGap(line: string, info: TomlLine, gaps: ReadonlyMap<string, string | null>): string {
  const gap = info.commentAt === null ? null : gaps.get(line.slice(info.commentAt));
  return gap === null || gap === undefined ? line : line.slice(0, info.commentAt!).trimEnd() + gap + line.slice(info.commentAt!);
}

/** A line as compared between the file and toml-patch's output: the spaces before its comment do not count. */
function layoutKey(line: string, info: TomlLine): string {
  return info.commentAt === null ? line : `${line.slice(0, info.commentAt).trimEnd()}\u0000${line.slice(info.commentAt)}`;
}
