import os from "node:os";
import type { InitializeResponse } from "../protocol/initialize.js";
import { CODEX_PROTOCOL_VERSION, SERVER_VERSION } from "../runtime/version.js";

// Printable ASCII, as an HTTP header value must be; the client's name ends up in a user agent.
const HEADER_VALUE = /^[\x20-\x7e]+$/;

/** Whether a client name can go into a user agent (an HTTP header value). */
export function isHeaderValue(name: string): boolean {
  return HEADER_VALUE.test(name);
}

/** The `initialize` result for a client. */
export function describeServer(clientInfo: { readonly name: string; readonly version: string }, home: string): InitializeResponse {
  const { name, version } = clientInfo;
  const platformOs = os.platform() === "darwin" ? "macos" : os.platform() === "win32" ? "windows" : os.platform();
  return {
    // Clients read the version after the first `/` as the protocol level (the Codex TUI warns when
    // it is older than its own), so it carries the Codex release we match; ours follows.
    userAgent: `${name}/${CODEX_PROTOCOL_VERSION} (${os.type()} ${os.release()}; ${os.arch()}) agent-app-server/${SERVER_VERSION} (${name}; ${version})`,
    codexHome: home,
    platformFamily: os.platform() === "win32" ? "windows" : "unix",
    platformOs,
  };
}
