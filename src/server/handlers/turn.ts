import type { ThreadManager } from "../../threads/threadManager.js";
import type { ClientConnection } from "../connection.js";
import type { HandlerTable } from "../dispatcher.js";
import { respond } from "./respond.js";

type TurnHandlers = Pick<HandlerTable, "turn/start" | "turn/steer" | "turn/interrupt">;

/** The `turn/*` methods, each a thin call into the ThreadManager. */
export function turnHandlers(threads: ThreadManager<ClientConnection>): TurnHandlers {
  return {
    "turn/start": async (params, context) => respond(context, await threads.startTurn(params)),
    "turn/steer": (params) => threads.steerTurn(params),
    "turn/interrupt": (params, context) => respond(context, threads.interruptTurn(params.threadId, params.turnId)),
  };
}
