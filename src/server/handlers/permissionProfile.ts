import type { PermissionProfileId } from "../../protocol/policy.js";
import { offsetPage } from "../../threads/paging.js";
import type { HandlerTable } from "../dispatcher.js";

/** The permission profiles Codex knows, as the sandbox policies they stand for here (see PROFILE_SANDBOX_MODE). */
const PROFILES: ReadonlyArray<{ id: PermissionProfileId; description: string; allowed: boolean }> = [
  { id: ":read-only", description: "Read files anywhere; write nothing; no network. Commands run in the read-only sandbox.", allowed: true },
  { id: ":workspace", description: "Read files anywhere; write in the workspace and temp dirs; no network (the workspace-write sandbox).", allowed: true },
  { id: ":danger-full-access", description: "No sandbox: commands may read and write anything and use the network.", allowed: true },
];

/** `permissionProfile/list`: the built-in profiles (this server has no named `[permissions]` profiles of its own). */
export function permissionProfileHandlers(): Pick<HandlerTable, "permissionProfile/list"> {
  return { "permissionProfile/list": (params) => offsetPage(PROFILES, params.cursor, params.limit) };
}
