import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { SERVER_VERSION } from "../runtime/version.js";

/** Which file a path named at some moment: a rewrite, a rename into place or a touch changes it. */
export interface FileIdentity {
  readonly dev: number;
  readonly ino: number;
  readonly size: number;
  readonly mtimeMs: number;
  readonly ctimeMs: number;
}

/**
 * What the last start on stdio that got as far as serving found: with the same command line, the
 * same server version and the same config.toml, a start is known to get there again, so the early
 * handshake may answer `initialize` before the server has loaded. Also what that answer needs from
 * the command line and the config, which the early handshake does not parse.
 */
export interface StartupStamp {
  readonly format: 1;
  readonly server: string;
  readonly argv: readonly string[];
  readonly includeJsonrpc: boolean;
  /** The largest message the server accepts (flag, config, or default). */
  readonly maxMessageBytes: number;
  /** config.toml as it was before it was read, or null when there was none. */
  readonly config: FileIdentity | null;
}

const STAMP_FILE = "startup_stamp.json";

/** The identity of `file` now, or null when nothing is there (or it cannot be looked at). */
export function fileIdentity(file: string): FileIdentity | null {
  try {
    const { dev, ino, size, mtimeMs, ctimeMs } = statSync(file);
    return { dev, ino, size, mtimeMs, ctimeMs };
  } catch {
    return null;
  }
}

/** The config file whose identity a stamp records. */
export function stampedConfigFile(home: string): string {
  return path.join(home, "config.toml");
}

/** A stamp from a start like this one (same argv, server and config.toml), or null. */
export function readMatchingStamp(home: string, argv: readonly string[]): StartupStamp | null {
  let stamp: Partial<StartupStamp>;
  try {
    stamp = JSON.parse(readFileSync(path.join(home, STAMP_FILE), "utf8")) as Partial<StartupStamp>;
  } catch {
    return null;
  }
  const matches =
    stamp.format === 1 &&
    stamp.server === SERVER_VERSION &&
    Array.isArray(stamp.argv) &&
    stamp.argv.length === argv.length &&
    stamp.argv.every((arg, index) => arg === argv[index]) &&
    typeof stamp.includeJsonrpc === "boolean" &&
    Number.isSafeInteger(stamp.maxMessageBytes) &&
    sameIdentity(stamp.config ?? null, fileIdentity(stampedConfigFile(home)));
  return matches ? (stamp as StartupStamp) : null;
}

/** Writes the stamp unless the home already holds this very one (a start on an unchanged home writes nothing). */
export async function recordStartupStamp(home: string, stamp: Omit<StartupStamp, "format" | "server">): Promise<void> {
  const file = path.join(home, STAMP_FILE);
  const text = `${JSON.stringify({ format: 1, server: SERVER_VERSION, ...stamp })}\n`;
  const { readFile } = await import("node:fs/promises");
  if ((await readFile(file, "utf8").catch(() => null)) === text) return;
  const { writeFileAtomic } = await import("../runtime/atomicFile.js");
  await writeFileAtomic(file, text);
}

function sameIdentity(a: FileIdentity | null, b: FileIdentity | null): boolean {
  if (a === null || b === null) return a === b;
  return a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs;
}
