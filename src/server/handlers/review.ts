import type { ThreadManager } from "../../threads/threadManager.js";
import type { ClientConnection } from "../connection.js";
import type { HandlerTable } from "../dispatcher.js";
import { respond } from "./respond.js";

/** `review/start`: a review of code changes, run as a turn of the loaded thread. */
export function reviewHandlers(threads: ThreadManager<ClientConnection>): Pick<HandlerTable, "review/start"> {
  return {
    "review/start": async (params, context) => respond(context, await threads.get(params.threadId).review(params)),
  };
}
