import { createRequire } from "node:module";

const packageJson = createRequire(import.meta.url)("../../package.json") as { version: string };

/** This server's own version, from package.json. */
export const SERVER_VERSION: string = packageJson.version;

/** The Codex app-server release whose protocol we speak; clients compare it with their own. */
export const CODEX_PROTOCOL_VERSION = "0.169.0";
