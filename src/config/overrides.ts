import { parse } from "../vendor/smolToml.js";

/** One `-c key.path=value` flag. */
export interface ConfigOverride {
  readonly path: string[];
  readonly value: unknown;
  /** The flag as the user typed it, for error messages. */
  readonly source: string;
}

/** Parses `-c` flags: a dotted key path, `=`, then a TOML value, or the raw text as a string (as Codex does). */
export function parseOverride(flag: string): ConfigOverride {
  const eq = flag.indexOf("=");
  if (eq <= 0) throw new Error(`invalid -c override \`${flag}\`: expected key=value`);
  const key = flag.slice(0, eq).trim();
  const path = key.split(".").map((part) => part.trim());
  if (path.some((part) => part.length === 0)) throw new Error(`invalid -c override \`${flag}\`: empty key segment`);
  return { path, value: parseTomlValue(flag.slice(eq + 1).trim()), source: flag };
}

function parseTomlValue(text: string): unknown {
  try {
    return parse(`value = ${text}`).value;
  } catch {
    return text;
  }
}

/** Sets `value` at `path` inside `target`, creating tables on the way. */
export function applyOverride(target: Record<string, unknown>, override: ConfigOverride): void {
  let table = target;
  for (const part of override.path.slice(0, -1)) {
    const next = table[part];
    if (typeof next !== "object" || next === null || Array.isArray(next)) table[part] = {};
    table = table[part] as Record<string, unknown>;
  }
  table[override.path[override.path.length - 1]!] = override.value;
}
