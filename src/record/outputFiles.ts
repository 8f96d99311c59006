import { mkdirSync, realpathSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import path from "node:path";

/** Where `record` writes: `--out DIR/NAME`, and DIR as it resolved before the session. */
export interface OutputPlace {
  readonly out: string;
  /** DIR with symlinks followed, as far as it existed when recording began. */
  readonly dir: string;
}

/**
 * `--out` settled before the session: DIR is often inside the workspace the model writes to, and
 * `record` writes unsandboxed when the session is over. A symlink the model left at DIR (or at
 * one of its parents) must not send the files elsewhere, nor one at `NAME.scenario.json` make the
 * write land on its target (`~/.bashrc`).
 */
export function outputPlace(out: string): OutputPlace {
  return { out, dir: resolvedDir(path.dirname(path.resolve(out))) };
}

/**
 * Writes `NAME<suffix>` in DIR and returns its path: DIR must still resolve where it did, and the
 * file is written new and renamed over the name, so a symlink there is replaced, not followed.
 */
export function writeOutput(place: OutputPlace, suffix: string, content: string): string {
  const dir = path.dirname(path.resolve(place.out));
  mkdirSync(dir, { recursive: true });
  if (realpathSync(dir) !== place.dir) throw new Error(`${dir} resolves to ${realpathSync(dir)} now, not ${place.dir} as when recording began; nothing written there`);
  const file = `${place.out}${suffix}`;
  const temporary = path.join(dir, `.${path.basename(file)}.${randomBytes(6).toString("hex")}.tmp`);
  try {
    writeFileSync(temporary, content, { flag: "wx" });
    renameSync(temporary, file);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
  return file;
}

/** `dir` with symlinks followed: its deepest existing ancestor resolved, the rest as written. */
function resolvedDir(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    const parent = path.dirname(dir);
    return parent === dir ? dir : path.join(resolvedDir(parent), path.basename(dir));
  }
}
