/** What a line of a TOML file is, as far as keeping its layout goes. */
export interface TomlLine {
  /** `header` is a `[table]` or `[[array]]` line; `other` is anything else, or inside a multi-line value or string. */
  readonly kind: "header" | "comment" | "blank" | "other";
  /** Where the line's comment starts (a `#` outside any string), if it has one. */
  readonly commentAt: number | null;
}

/**
 * Classifies each line of a TOML text (split on `\n`), following strings and brackets across lines
 * so that a `#` or `[` inside a multi-line string or array is never taken for a comment or header.
 */
export function classifyLines(lines: readonly string[]): TomlLine[] {
  let openString: '"""' | "'''" | null = null;
  let depth = 0;
  return lines.map((line) => {
    const kind = openString !== null || depth > 0 ? "other" : kindAtTopLevel(line.trim());
    let commentAt: number | null = null;
    for (let i = 0; i < line.length; i++) {
      const char = line[i]!;
      if (openString !== null) {
        if (openString === '"""' && char === "\\") i++;
        else if (line.startsWith(openString, i)) {
          // Up to two more quotes right before the delimiter belong to the string: `""""` ends one.
          let end = i + 3;
          while (line[end] === openString[0] && end < i + 5) end++;
          i = end - 1;
          openString = null;
        }
      } else if (char === "#") {
        commentAt = i;
        break;
      } else if (char === '"' || char === "'") {
        const triple = char === '"' ? '"""' : "'''";
        if (line.startsWith(triple, i)) {
          openString = triple;
          i += 2;
        } else {
          i = closingQuote(line, i);
        }
      } else if (char === "[" || char === "{") depth++;
      else if (char === "]" || char === "}") depth--;
    }
    return { kind, commentAt };
  });
}

/** A line outside any value: at the top level, only a header line starts with `[`. */
function kindAtTopLevel(trimmed: string): TomlLine["kind"] {
  if (trimmed === "") return "blank";
  if (trimmed.startsWith("#")) return "comment";
  return trimmed.startsWith("[") ? "header" : "other";
}

/** The index of the quote that closes the one-line string opened at `start` (basic strings have escapes). */
function closingQuote(line: string, start: number): number {
  const quote = line[start];
  let i = start + 1;
  while (i < line.length && line[i] !== quote) i += quote === '"' && line[i] === "\\" ? 2 : 1;
  return i;
}
