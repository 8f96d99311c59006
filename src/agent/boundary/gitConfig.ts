/**
 * A reader of git's configuration files, just enough to learn which paths git will execute or
 * read as configuration: it parses git-config(1)'s syntax (sections, `"subsections"`, quoted
 * values, escapes, continuation lines, comments) and follows `include.path` and every
 * `includeIf.*.path` (all of them, whatever their condition: reading more never protects less).
 * It runs no program: git itself, run on a hostile repository, could run one.
 */
import { readFileSync, statSync } from "node:fs";
import path from "node:path";

/** One `key = value` of a config file: the key lowercased (`section.subsection.name`, the subsection as written). */
export interface ConfigEntry {
  readonly key: string;
  readonly value: string;
  /** The file it came from. */
  readonly file: string;
}

/** Includes nested deeper than this are not followed (git's own limit is 10). */
const MAX_INCLUDE_DEPTH = 10;
/** A config file larger than this is not git's (git reads any size, but no real one comes near it). */
const MAX_CONFIG_BYTES = 4 * 1024 * 1024;

interface Parsed {
  readonly stamp: string;
  readonly entries: readonly ConfigEntry[];
}

const cache = new Map<string, Parsed>();

/**
 * The entries of `file` and of every file it includes, in order, with the files git would read:
 * `file` and every include target, whether they exist yet or not (one created later is read as
 * configuration too). `home` expands `~/` in include paths. A missing or unreadable file adds no entries.
 */
export function readGitConfig(file: string, home: string | undefined): { entries: ConfigEntry[]; files: string[] } {
  const entries: ConfigEntry[] = [];
  const files: string[] = [];
  const visit = (current: string, depth: number) => {
    if (depth > MAX_INCLUDE_DEPTH || files.includes(current)) return;
    files.push(current);
    for (const entry of parsedFile(current)?.entries ?? []) {
      entries.push(entry);
      if (isIncludePath(entry.key)) {
        const included = resolveConfigPath(entry.value, path.dirname(current), home);
        if (included) visit(included, depth + 1);
      }
    }
  };
  visit(path.resolve(file), 0);
  return { entries, files };
}

/** Whether a key names another config file to read: `include.path`, `includeIf.<condition>.path`. */
function isIncludePath(key: string): boolean {
  return key === "include.path" || (key.startsWith("includeif.") && key.endsWith(".path"));
}

/**
 * A path as git reads a path-valued setting: `~/` from the home, relative to `base`. Null when it
 * cannot be known (`~user/`, empty).
 */
export function resolveConfigPath(value: string, base: string, home: string | undefined): string | null {
  if (value === "") return null;
  if (value === "~" || value.startsWith("~/")) return home ? path.join(home, value.slice(1)) : null;
  if (value.startsWith("~")) return null;
  return path.resolve(base, value);
}

/** The file's entries, parsed again only when it changed (size, inode or times). */
function parsedFile(file: string): Parsed | null {
  let stamp: string;
  try {
    const stats = statSync(file);
    if (!stats.isFile() || stats.size > MAX_CONFIG_BYTES) return null;
    stamp = `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}`;
  } catch {
    return null;
  }
  const known = cache.get(file);
  if (known?.stamp === stamp) return known;
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return null;
  }
  const parsed = { stamp, entries: parseGitConfig(text, file) };
  cache.set(file, parsed);
  return parsed;
}

/** Parses one config file's text; lines it cannot read are skipped (git would refuse the file: reading the rest protects more). */
export function parseGitConfig(text: string, file: string): ConfigEntry[] {
  const entries: ConfigEntry[] = [];
  let section = "";
  let i = 0;
  const n = text.length;
  const skipBlanks = () => {
    while (i < n && (text[i] === " " || text[i] === "\t" || text[i] === "\r")) i++;
  };
  const skipLine = () => {
    while (i < n && text[i] !== "\n") i++;
    i++;
  };
  while (i < n) {
    skipBlanks();
    const c = text[i];
    if (c === undefined) break;
    if (c === "\n") {
      i++;
    } else if (c === "#" || c === ";") {
      skipLine();
    } else if (c === "[") {
      const header = readHeader(text, i + 1);
      if (header) {
        section = header.section;
        i = header.end;
      } else {
        skipLine();
      }
    } else if (/[A-Za-z]/.test(c)) {
      const start = i;
      while (i < n && /[A-Za-z0-9-]/.test(text[i]!)) i++;
      const name = text.slice(start, i).toLowerCase();
      skipBlanks();
      let value = "true";
      if (text[i] === "=") {
        const read = readValue(text, i + 1);
        value = read.value;
        i = read.end;
      } else {
        skipLine();
      }
      if (section !== "") entries.push({ key: `${section}.${name}`, value, file });
    } else {
      skipLine();
    }
  }
  return entries;
}

/** A `[section]`, `[section "subsection"]` or `[section.subsection]` header starting after its `[`. */
function readHeader(text: string, start: number): { section: string; end: number } | null {
  let i = start;
  while (i < text.length && /[A-Za-z0-9.-]/.test(text[i]!)) i++;
  const name = text.slice(start, i).toLowerCase();
  if (name === "") return null;
  if (text[i] === "]") return { section: name, end: i + 1 };
  while (text[i] === " " || text[i] === "\t") i++;
  if (text[i] !== '"') return null;
  let subsection = "";
  for (i++; i < text.length && text[i] !== '"'; i++) {
    if (text[i] === "\n") return null;
    if (text[i] === "\\" && i + 1 < text.length) i++;
    subsection += text[i];
  }
  if (text[i + 1] !== "]") return null;
  return { section: `${name}.${subsection}`, end: i + 2 };
}

/** A value after its `=`, to the end of its (possibly continued) line: quotes grouped, escapes read, comments dropped. */
function readValue(text: string, start: number): { value: string; end: number } {
  let value = "";
  let quoted = false;
  // Whitespace is kept only between words: trailing runs are dropped unless quoted.
  let pendingSpace = "";
  let i = start;
  while (i < text.length && (text[i] === " " || text[i] === "\t")) i++;
  for (; i < text.length; i++) {
    const c = text[i]!;
    if (c === "\n" && !quoted) break;
    if (c === "\r" && text[i + 1] === "\n" && !quoted) continue;
    if (!quoted && (c === "#" || c === ";")) {
      while (i < text.length && text[i] !== "\n") i++;
      break;
    }
    if (c === '"') {
      quoted = !quoted;
      continue;
    }
    if (c === "\\") {
      const next = text[++i];
      if (next === "\n") continue;
      if (next === "\r" && text[i + 1] === "\n") {
        i++;
        continue;
      }
      const escaped = next === "n" ? "\n" : next === "t" ? "\t" : next === "b" ? "\b" : (next ?? "");
      value += pendingSpace + escaped;
      pendingSpace = "";
      continue;
    }
    if (!quoted && (c === " " || c === "\t")) {
      pendingSpace += c;
      continue;
    }
    value += pendingSpace + c;
    pendingSpace = "";
  }
  return { value, end: i + 1 };
}
