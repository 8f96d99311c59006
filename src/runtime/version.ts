import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const PACKAGE_NAME = "agent-app-server";

/**
 * Our package's root and package.json: the nearest directory above this module whose package.json
 * is named agent-app-server. tsc's output sits at dist/runtime/, the bundled command line's chunks
 * at dist/chunks/, so no fixed relative path fits both, and a package.json on the way (a
 * `{"type": "module"}` marker) is not ours.
 */
function findPackage(): { root: string; version: string } {
  const here = fileURLToPath(import.meta.url);
  for (let dir = path.dirname(here); ; dir = path.dirname(dir)) {
    const file = path.join(dir, "package.json");
    if (existsSync(file)) {
      const json = JSON.parse(readFileSync(file, "utf8")) as { name?: unknown; version?: unknown };
      if (json.name === PACKAGE_NAME && typeof json.version === "string") return { root: dir, version: json.version };
    }
    if (path.dirname(dir) === dir) throw new Error(`no package.json of ${PACKAGE_NAME} above ${here}`);
  }
}

const found = findPackage();

/** This server's own version, from package.json. */
export const SERVER_VERSION: string = found.version;

/** The directory of our package.json (the repository, or node_modules/agent-app-server when installed). */
export const PACKAGE_ROOT: string = found.root;

/** The Codex app-server release whose protocol we speak; clients compare it with their own. */
export const CODEX_PROTOCOL_VERSION = "0.169.0";
