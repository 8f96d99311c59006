import { invalidRequest, type RpcError } from "../protocol/errors.js";

/** Codex's text for a thread that must be loaded but is not (or does not exist). */
export function threadNotFound(id: string): RpcError {
  return invalidRequest(`thread not found: ${id}`);
}

/** Codex's text for a thread id with no stored file. */
export function noRolloutFound(id: string): RpcError {
  return invalidRequest(`no rollout found for thread id ${id}`);
}

/** A cursor this server did not hand out. */
export function invalidCursor(cursor: string): RpcError {
  return invalidRequest(`invalid cursor: ${cursor}`);
}

const UUID = /^(urn:uuid:)?\{?[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}\}?$/i;

/** Thread ids are UUIDs; anything else is refused up front, as Codex does, instead of looked up. */
export function checkThreadId(id: string): void {
  if (!UUID.test(id)) throw invalidRequest(`invalid thread id: expected a UUID, found \`${id}\``);
}
