import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const PACKAGE_NAME = "agent-app-server";

/**
 * Our package.json, the nearest above this module named agent-app-server: tsc's output sits at
 * dist/runtime/, the bundled command line's chunks at dist/chunks/, so no fixed relative path fits
 * both, and a package.json on the way (a `{"type": "module"}` marker) is not ours.
 */
function readPackageJson(): { version: string } {
  const here = fileURLToPath(import.meta.url);
  for (let dir = path.dirname(here); ; dir = path.dirname(dir)) {
    const file = path.join(dir, "package.json");
    if (existsSync(file)) {
      const json = JSON.parse(readFileSync(file, "utf8")) as { name?: unknown; version?: unknown };
      if (json.name === PACKAGE_NAME && typeof json.version === "string") return { version: json.version };
    }
    if (path.dirname(dir) === dir) throw new Error(`no package.json of ${PACKAGE_NAME} above ${here}`);
  }
}

/** This server's own version, from package.json. */
export const SERVER_VERSION: string = readPackageJson().version;

/** The Codex app-server release whose protocol we speak; clients compare it with their own. */
export const CODEX_PROTOCOL_VERSION = "0.169.0";
