import { invalidRequest } from "../../protocol/errors.js";
import type { RequestContext } from "../dispatcher.js";

/** As Codex: a field of the experimental API (given, and not an empty list) is refused unless the client opted in. */
export function requireExperimentalApi(context: RequestContext, field: string, value: unknown): void {
  const given = value != null && !(Array.isArray(value) && value.length === 0);
  if (given && !context.connection.client?.experimentalApi) throw invalidRequest(`${field} requires experimentalApi capability`);
}
