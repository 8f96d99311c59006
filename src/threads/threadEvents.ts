/**
 * How thread state reaches clients: notifications through one emitter and server → client requests
 * through one requester, both supplied by the server layer; and the result-then-notifications pair
 * every thread operation answers with.
 */
import type {
  ServerNotificationMethod,
  ServerNotificationParams,
  ServerRequestMethod,
  ServerRequestParams,
} from "../protocol/methods.js";
import type { OpenRequest } from "./activeTurn.js";

/**
 * Sends a notification to some subscribers; the server layer builds and writes it. Returns a
 * promise while a subscriber reads its output slower than it is written (it resolves once that
 * output has drained): a producer that can wait, a streaming turn, should.
 */
export type ThreadEmitter<S> = <M extends ServerNotificationMethod>(
  recipients: Iterable<S>,
  method: M,
  params: ServerNotificationParams<M>,
) => Promise<void> | undefined;

/** A result plus the notifications that must follow the response to it. */
export interface Outcome<R> {
  readonly result: R;
  readonly after?: () => void;
  /**
   * Background work to start once the answer is in the output stream: a large answer is serialized
   * after `after` has run, and work started with it would take the event loop from it.
   */
  readonly afterWritten?: () => void;
}

/** Sends server → client requests to subscribers; the server layer owns ids and connections. */
export interface ClientRequester<S> {
  open<M extends ServerRequestMethod>(recipients: Iterable<S>, method: M, params: ServerRequestParams<M>): OpenRequest<M>;
  /** Sends a still-pending request to one more recipient (a client that resumed the thread). */
  replay(id: number, method: ServerRequestMethod, params: ServerRequestParams<ServerRequestMethod>, recipient: S): void;
  withdraw(id: number, reason: string): void;
  /** The request is over: each of `recipients` it was sent to gets `serverRequest/resolved` under its own id; then it is forgotten. */
  resolved(id: number, recipients: Iterable<S>, threadId: string): void;
  /** The request is over and is forgotten without a `serverRequest/resolved`. */
  forget(id: number): void;
}
