import type { ThreadItem } from "../protocol/items.js";
import type { ServerNotificationMethod, ServerNotificationParams } from "../protocol/methods.js";
import type { ConversationItem } from "./conversation.js";
import type { ModelUsage } from "./model/modelClient.js";

/** A notification the turn sends as is (deltas, plan updates, retry notices). */
export type TurnNotification = {
  [M in ServerNotificationMethod]: { readonly type: "notify"; readonly method: M; readonly params: ServerNotificationParams<M> };
}[ServerNotificationMethod];

/** Everything a running turn reports, in order, through one emitter; the thread layer stores and relays it. */
export type TurnEvent =
  | { readonly type: "itemStarted"; readonly item: ThreadItem }
  | { readonly type: "itemCompleted"; readonly item: ThreadItem }
  /** Completes every started item with what has streamed into it so far (a broken stream is retried). */
  | { readonly type: "completeOpenItems" }
  /** Forgets started items that never complete: a response cut by queued input drops what it was still streaming, as Codex does. */
  | { readonly type: "dropOpenItems"; readonly ids: readonly string[] }
  /** The thread's token usage, sent again as it stands (Codex does when steered input cuts a response). */
  | { readonly type: "reportUsage" }
  | TurnNotification
  /** Entries appended to the model-visible history. */
  | { readonly type: "history"; readonly items: readonly ConversationItem[] }
  /** The model-visible history was summarized: `items` replace all of it. */
  | { readonly type: "compacted"; readonly items: readonly ConversationItem[] }
  /** One model response's token usage. */
  | { readonly type: "usage"; readonly usage: ModelUsage };

/**
 * Where a turn's events go, in order. Notifications go out before it returns, with no promise while
 * clients keep up (a stream of deltas pays for no await); events that store something, and
 * notifications a client is behind on, return a promise, and awaiting it lets storage and slow
 * readers apply backpressure.
 */
export type TurnEmitter = (event: TurnEvent) => Promise<void> | void;
