import type { ServerNotificationMethod, ServerNotificationParams } from "../protocol/methods.js";

/** Sends a notification to some subscribers; the server layer builds and writes it. */
export type ThreadEmitter<S> = <M extends ServerNotificationMethod>(
  recipients: Iterable<S>,
  method: M,
  params: ServerNotificationParams<M>,
) => void;

/** A result plus the notifications that must follow the response to it. */
export interface Outcome<R> {
  readonly result: R;
  readonly after?: () => void;
}
