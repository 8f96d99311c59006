import { closeSync, constants, fstatSync, openSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { isJsonObject } from "../runtime/jsonObject.js";
import { PACKAGE_ROOT, SERVER_VERSION } from "../runtime/version.js";

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
 * same build of the server and the same config.toml, a start is known to get there again, so the
 * early handshake may answer `initialize` before the server has loaded. Also what that answer
 * needs from the command line and the config, which the early handshake does not parse. Only
 * starts that read nothing else are stamped (see `serve`: no model script, no session log).
 */
export interface StartupStamp {
  readonly format: 2;
  readonly server: string;
  /** The server's build: its bundle's folder, made anew by every build (null when run unbundled). */
  readonly build: FileIdentity | null;
  /** A digest of the arguments, not the arguments: `-c` values may hold tokens. */
  readonly argv: string;
  readonly includeJsonrpc: boolean;
  /** The largest message the server accepts (flag, config, or default). */
  readonly maxMessageBytes: number;
  /** config.toml as it was before it was read, or null when there was none. */
  readonly config: FileIdentity | null;
}

/** What a start records; the rest of the stamp is the running server's own. */
export type StartupFacts = Pick<StartupStamp, "includeJsonrpc" | "maxMessageBytes" | "config">;

const STAMP_FILE = "startup_stamp.json";
// A stamp is a few hundred bytes; anything much larger is not one of ours.
const MAX_STAMP_BYTES = 64 * 1024;

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

/** A stamp from a start like this one (same argv, server build and config.toml), or null. */
export function readMatchingStamp(home: string, argv: readonly string[]): StartupStamp | null {
  const stamp = readStamp(path.join(home, STAMP_FILE));
  if (stamp === null) return null;
  const matches =
    stamp.format === 2 &&
    stamp.server === SERVER_VERSION &&
    sameIdentity(stamp.build ?? null, buildIdentity()) &&
    stamp.argv === argvDigest(argv) &&
    typeof stamp.includeJsonrpc === "boolean" &&
    Number.isSafeInteger(stamp.maxMessageBytes) &&
    sameIdentity(stamp.config ?? null, fileIdentity(stampedConfigFile(home)));
  return matches ? (stamp as StartupStamp) : null;
}

/** Writes the stamp (owner-only, as the home's other state) unless the home already holds this very one. */
export async function recordStartupStamp(home: string, argv: readonly string[], facts: StartupFacts): Promise<void> {
  const file = path.join(home, STAMP_FILE);
  const stamp: StartupStamp = { format: 2, server: SERVER_VERSION, build: buildIdentity(), argv: argvDigest(argv), ...facts };
  const text = `${JSON.stringify(stamp)}\n`;
  if (readStampText(file) === text) return;
  const { writeFileAtomic } = await import("../runtime/atomicFile.js");
  await writeFileAtomic(file, text, { mode: 0o600 });
}

/** The stamp file's JSON object, or null: unreadable (see {@link readStampText}), or not an object. */
function readStamp(file: string): Partial<StartupStamp> | null {
  try {
    const value: unknown = JSON.parse(readStampText(file) ?? "null");
    return isJsonObject(value) ? (value as Partial<StartupStamp>) : null;
  } catch {
    return null;
  }
}

/** The stamp file's text, or null: missing, not a regular file (opening a FIFO would block), or too large. */
function readStampText(file: string): string | null {
  let fd: number | undefined;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
    const info = fstatSync(fd);
    return info.isFile() && info.size <= MAX_STAMP_BYTES ? readFileSync(fd, "utf8") : null;
  } catch {
    return null;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function buildIdentity(): FileIdentity | null {
  return fileIdentity(path.join(PACKAGE_ROOT, "dist", "chunks"));
}

/**
 * cyrb53, a 53-bit string hash: the stamp must not keep the arguments (a `-c` value may be a
 * token), and node:crypto would add ~1.3 ms to a start that takes ~52. Collisions cost nothing but
 * an early answer for a start that then fails like any other.
 */
function argvDigest(argv: readonly string[]): string {
  const text = JSON.stringify(argv);
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ code, 2654435761);
    h2 = Math.imul(h2 ^ code, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
}

function sameIdentity(a: FileIdentity | null, b: FileIdentity | null): boolean {
  if (a === null || b === null) return a === b;
  return a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs;
}
