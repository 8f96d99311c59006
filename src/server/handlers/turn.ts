import type { ThreadManager } from "../../threads/threadManager.js";
import type { ClientConnection } from "../connection.js";
import type { HandlerTable } from "../dispatcher.js";
import { requireExperimentalApi } from "./experimentalFields.js";
import { respond } from "./respond.js";

type TurnHandlers = Pick<HandlerTable, "turn/start" | "turn/steer" | "turn/interrupt">;

/** The `turn/*` methods, each a thin call into the loaded thread the ThreadManager finds. */
export function turnHandlers(threads: ThreadManager<ClientConnection>): TurnHandlers {
  return {
    "turn/start": async (params, context) => {
      requireExperimentalApi(context, "turn/start.permissions", params.permissions);
      return respond(context, await threads.get(params.threadId).startTurn(params));
    },
    "turn/steer": (params) => threads.get(params.threadId).steer(params),
    "turn/interrupt": (params, context) => respond(context, threads.get(params.threadId).interrupt(params.turnId)),
  };
}
