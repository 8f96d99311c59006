import { alreadyInitialized, invalidRequest } from "../../protocol/errors.js";
import type { McpServerStatusUpdatedNotification } from "../../protocol/mcpMethods.js";
import type { ConfigWarningNotification } from "../../protocol/notifications.js";
import type { Clock } from "../../runtime/clock.js";
import type { Handler } from "../dispatcher.js";
import { createNotification } from "../notifications.js";
import { describeServer, isHeaderValue } from "../serverDescription.js";

/** What `initialize` needs from the server. */
export interface InitializeDeps {
  readonly home: string;
  readonly clock: Clock;
  /** Sent to each client right after its initialize response, as Codex sends its startup warnings. */
  readonly configWarnings: readonly ConfigWarningNotification[];
  /** Where each MCP server is now: a client connecting after a server started still learns how it went. */
  readonly mcpStartupStatuses: () => readonly McpServerStatusUpdatedNotification[];
}

/** Serves `initialize`: records the client's capabilities and describes this server. */
export function initializeHandler({ home, clock, configWarnings, mcpStartupStatuses }: InitializeDeps): Handler<"initialize"> {
  return (params, { connection, afterResponse }) => {
    if (connection.client) throw alreadyInitialized();
    const { name, version } = params.clientInfo;
    if (!isHeaderValue(name)) {
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
    return describeServer(params.clientInfo, home);
  };
}
