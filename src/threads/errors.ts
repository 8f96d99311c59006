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
