import type { TurnNotification } from "../agent/index.js";
import type { ThreadItem } from "../protocol/items.js";
import { TextBuilder } from "../runtime/textBuilder.js";

/** An automatic review as its start announced it. */
export type ReviewStarted = Extract<TurnNotification, { method: "item/autoApprovalReview/started" }>["params"];

/** A started item and what has streamed into it since. */
interface OpenItem {
  readonly started: ThreadItem;
  /** Agent message text or command output that arrived as deltas; null before the first. */
  streamed: TextBuilder | null;
  /** Reasoning summary parts as they stand after their deltas; null before the first. */
  summary: TextBuilder[] | null;
}

/**
 * The items of a running turn that started and have not completed, kept current with their
 * deltas. A delta is appended to the item's own running text instead of copying the item, so a
 * long stream costs an append per delta and holds about the text itself (see TextBuilder); the
 * current item is built when someone asks.
 */
export class OpenItems {
  private readonly items = new Map<string, OpenItem>();
  /** Automatic reviews announced and not yet completed, by review id. */
  private readonly reviews = new Map<string, ReviewStarted>();

  /** Adds an item that has just started. */
  add(item: ThreadItem): void {
    this.items.set(item.id, { started: item, streamed: null, summary: null });
  }

  /** Removes an item that completed. */
  delete(id: string): void {
    this.items.delete(id);
  }

  /** When an open item started. */
  startedAtMs(id: string): number | null | undefined {
    return this.items.get(id)?.started.startedAtMs;
  }

  /** The open items as they stand now, in start order. */
  current(): ThreadItem[] {
    return Array.from(this.items.values(), currentItem);
  }

  /** The automatic reviews still in progress, in start order. */
  openReviews(): ReviewStarted[] {
    return [...this.reviews.values()];
  }

  /** Appends a notification's delta to the open item it belongs to, and follows reviews; other notifications change nothing. */
  track(event: TurnNotification): void {
    if (event.method === "item/autoApprovalReview/started") {
      this.reviews.set(event.params.reviewId, event.params);
    } else if (event.method === "item/autoApprovalReview/completed") {
      this.reviews.delete(event.params.reviewId);
    } else if (event.method === "item/agentMessage/delta") {
      const open = this.items.get(event.params.itemId);
      if (open?.started.type === "agentMessage") (open.streamed ??= new TextBuilder()).append(event.params.delta);
    } else if (event.method === "item/reasoning/summaryTextDelta") {
      const open = this.items.get(event.params.itemId);
      if (open?.started.type === "reasoning") {
        open.summary ??= (open.started.summary ?? []).map((part) => new TextBuilder(part));
        (open.summary[event.params.summaryIndex] ??= new TextBuilder()).append(event.params.delta);
      }
    } else if (event.method === "item/commandExecution/outputDelta") {
      const open = this.items.get(event.params.itemId);
      if (open?.started.type === "commandExecution") (open.streamed ??= new TextBuilder()).append(event.params.delta);
    }
  }
}

function currentItem({ started, streamed, summary }: OpenItem): ThreadItem {
  if (started.type === "agentMessage" && streamed !== null) return { ...started, text: started.text + streamed.toString() };
  if (started.type === "commandExecution" && streamed !== null) return { ...started, aggregatedOutput: (started.aggregatedOutput ?? "") + streamed.toString() };
  if (started.type === "reasoning" && summary !== null) return { ...started, summary: Array.from(summary, (part) => part?.toString() ?? "") };
  return started;
}
