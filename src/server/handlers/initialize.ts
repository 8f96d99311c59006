import os from "node:os";
import { alreadyInitialized, invalidRequest } from "../../protocol/errors.js";
import type { InitializeParams, InitializeResponse } from "../../protocol/initialize.js";
import type { McpServerStatusUpdatedNotification } from "../../protocol/mcpMethods.js";
import type { ConfigWarningNotification } from "../../protocol/notifications.js";
import type { Clock } from "../../runtime/clock.js";
import { CODEX_PROTOCOL_VERSION, SERVER_VERSION } from "../../runtime/version.js";
import type { Handler } from "../dispatcher.js";
import { createNotification } from "../notifications.js";

/** What `initialize` needs from the server. */
export interface InitializeDeps {
  readonly home: string;
  readonly clock: Clock;
  /** Sent to each client right after its initialize response, as Codex sends its startup warnings. */
  readonly configWarnings: readonly ConfigWarningNotification[];
  /** Where each MCP server is now: a client connecting after a server started still learns how it went. */
  readonly mcpStartupStatuses: () => readonly McpServerStatusUpdatedNotification[];
}

/** Printable ASCII, as an HTTP header value must be; the name ends up in a user agent. */
const HEADER_VALUE = /^[\x20-\x7e]+$/;

/** Serves `initialize`: records the client's capabilities and describes this server. */
export function initializeHandler({ home, clock, configWarnings, mcpStartupStatuses }: InitializeDeps): Handler<"initialize"> {
  return (params, { connection, afterResponse }) => {
    if (connection.client) throw alreadyInitialized();
    const { name, version } = params.clientInfo;
    if (!HEADER_VALUE.test(name)) {
      throw invalidRequest(`Invalid clientInfo.name: '${name}'. Must be a valid HTTP header value.`);
    }
    connection.markInitialized({
      clientName: name,
      clientVersion: version,
      experimentalApi: params.capabilities?.experimentalApi ?? false,
      optOutNotificationMethods: new Set(params.capabilities?.optOutNotificationMethods ?? []),
    });
    afterResponse(() => {
      for (const warning of configWarnings) void connection.notify(createNotification(clock, "configWarning", warning));
      for (const status of mcpStartupStatuses()) void connection.notify(createNotification(clock, "mcpServer/startupStatus/updated", status));
    });
    return describeServer(params, home);
  };
}

function describeServer(params: InitializeParams, home: string): InitializeResponse {
  const { name, version } = params.clientInfo;
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
