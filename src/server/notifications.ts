import type { ServerNotificationMethod, ServerNotificationParams } from "../protocol/methods.js";
import type { Clock } from "../runtime/clock.js";
import type { OutgoingNotification } from "./connection.js";

/** Builds a typed server notification, stamped once with `emittedAtMs` before any fan-out. */
export function createNotification<M extends ServerNotificationMethod>(
  clock: Clock,
  method: M,
  params: ServerNotificationParams<M>,
): OutgoingNotification {
  return { jsonrpc: "2.0", method, params, emittedAtMs: clock.nowMs() };
}
