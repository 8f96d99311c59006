import { isDeepStrictEqual } from "node:util";
import { parse, stringify } from "../vendor/smolToml.js";

/** A TOML file's new text, and the table it reads as. */
export interface EditedToml {
  readonly text: string;
  readonly table: Record<string, unknown>;
}

/**
 * `text` changed to read as `updated`: only the values that differ are written, so comments,
 * blank lines, key order and formatting stay everywhere else. A new table is added at the end as
 * a `[a.b]` (or `[[a.b]]`) section, as Codex's toml_edit adds it (under an inline table, where no
 * section can go, toml-patch writes it inline). Every result is read back: a way of writing that
 * does not read as `updated` gives way to the next, the last a full rewrite.
 */
export async function editToml(text: string, updated: Record<string, unknown>): Promise<EditedToml> {
  // toml-patch (0.24 MB) loads at the first config write rather than with every start.
  const { patchKeepingLayout } = await import("./tomlLayout.js");
  const { rest, sections } = splitNewTables(parse(text), updated);
  const attempts = [() => patchKeepingLayout(text, updated)];
  if (sections !== null) attempts.unshift(() => patchKeepingLayout(text, rest, stringify(sections)));
  for (const attempt of attempts) {
    try {
      const edited = attempt();
      const table = parse(edited);
      if (sameValues(table, updated)) return { text: edited, table };
    } catch {
      // toml-patch may throw on a shape it cannot patch, and a section may not parse where it
      // went (under an inline table, say): either way the next attempt writes it differently.
    }
  }
  // Nothing kept the layout and read back right: the file is written from scratch rather than wrong.
  const rewritten = stringify(updated);
  return { text: rewritten, table: parse(rewritten) };
}

/** A TOML table: an object, but neither an array nor a date. */
export function isTable(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

/** The tables (and arrays of tables) `updated` has where `before` has nothing, apart from the rest. */
function splitNewTables(
  before: Record<string, unknown>,
  updated: Record<string, unknown>,
): { rest: Record<string, unknown>; sections: Record<string, unknown> | null } {
  const rest: Record<string, unknown> = {};
  const sections: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(updated)) {
    const old = before[key];
    if (old === undefined && (isTable(value) || (Array.isArray(value) && value.length > 0 && value.every(isTable)))) {
      sections[key] = value;
    } else if (isTable(old) && isTable(value)) {
      const inner = splitNewTables(old, value);
      rest[key] = inner.rest;
      if (inner.sections !== null) sections[key] = inner.sections;
    } else {
      rest[key] = value;
    }
  }
  return { rest, sections: Object.keys(sections).length > 0 ? sections : null };
}

/** Whether two tables hold the same values: smol-toml's tables have no prototype and a request's do. */
function sameValues(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  return isDeepStrictEqual(JSON.parse(JSON.stringify(a)), JSON.parse(JSON.stringify(b)));
}
