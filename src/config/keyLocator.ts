/**
 * Finds the line (1-based) of a TOML file that sets the key at `path`, or the table that holds it,
 * so a config error can point at a line. Best effort: it reads `[table]` headers and `key =` lines,
 * enough for hand-written config files.
 */
export function locateKey(text: string, path: ReadonlyArray<PropertyKey>): number | undefined {
  const target = path.filter((part): part is string => typeof part === "string");
  let table: string[] = [];
  let best: { line: number; depth: number } | undefined;
  const consider = (keys: string[], line: number) => {
    if (keys.length === 0 || keys.length > target.length) return;
    if (!keys.every((key, i) => key === target[i])) return;
    if (!best || keys.length > best.depth) best = { line, depth: keys.length };
  };
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    const header = /^\[\[?([^\]]+)\]\]?$/.exec(line);
    if (header) {
      table = splitKey(header[1]!);
      consider(table, index + 1);
      return;
    }
    const assignment = /^([A-Za-z0-9_\-."' ]+?)\s*=/.exec(line);
    if (assignment) consider([...table, ...splitKey(assignment[1]!)], index + 1);
  });
  return best?.line;
}

function splitKey(key: string): string[] {
  return key.split(".").map((part) => part.trim().replace(/^["']|["']$/g, ""));
}
