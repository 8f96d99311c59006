import type { RequestContext } from "../dispatcher.js";

/** Returns an outcome's result and runs the notifications it owes once the response has been written. */
export function respond<R>(context: RequestContext, outcome: { result: R; after?: () => void; afterWritten?: () => void }): R {
  if (outcome.after) context.afterResponse(outcome.after);
  if (outcome.afterWritten) context.whenAnswerWritten(outcome.afterWritten);
  return outcome.result;
}
