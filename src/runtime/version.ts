import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The package.json nearest above this module: tsc's output sits at dist/runtime/, the bundled
 * command line's chunks at dist/chunks/, so no fixed relative path fits both.
 */
function readPackageJson(): { version: string } {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, "package.json"))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
  return JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as { version: string };
}

/** This server's own version, from package.json. */
export const SERVER_VERSION: string = readPackageJson().version;

/** The Codex app-server release whose protocol we speak; clients compare it with their own. */
export const CODEX_PROTOCOL_VERSION = "0.169.0";
