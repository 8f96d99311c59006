import type { ModelTap } from "../agent/index.js";
import type { ModelClient, ModelEvent, ModelRequest, ModelUsage } from "../agent/model/modelClient.js";
import type { MockItem, MockResponseInput } from "../testing/mockScript.js";

type RecordedItem = MockItem & { deltas?: string[]; summary?: string[]; content?: string[] };

/**
 * Keeps every model response of a recorded session as the scripted model's response that plays
 * it again, in the order the requests were made: each message with its deltas, reasoning, tool
 * calls with their arguments, and usage. A response cut short by an interrupt becomes one that
 * streams what came and then hangs, so the replayed interrupt finds the turn where it was.
 */
export class ResponseRecorder {
  readonly responses: MockResponseInput[] = [];

  /** Wraps a turn's model client so that each of its responses is recorded. */
  readonly tap: ModelTap = (client: ModelClient): ModelClient => ({
    prepare: () => client.prepare(),
    stream: (request: ModelRequest, signal: AbortSignal) => this.record(client.stream(request, signal), signal),
  });

  private async *record(events: AsyncIterable<readonly ModelEvent[]>, signal: AbortSignal): AsyncIterable<readonly ModelEvent[]> {
    const response: MockResponseInput & { items: RecordedItem[] } = { items: [] };
    this.responses.push(response);
    const builder = new ResponseBuilder(response);
    try {
      for await (const batch of events) {
        for (const event of batch) builder.add(event);
        yield batch;
      }
    } catch (error) {
      if (signal.aborted) response.hang = true;
      else response.failed = { message: error instanceof Error ? error.message : String(error) };
      throw error;
    } finally {
      // A consumer that stopped reading (an interrupt between batches) ends the stream here.
      if (signal.aborted && !("usage" in response)) response.hang = true;
    }
  }
}

/** Folds one response's events into its scripted items. */
class ResponseBuilder {
  private readonly messages = new Map<string, RecordedItem & { type: "message" }>();
  private readonly reasoning = new Map<string, RecordedItem & { type: "reasoning" }>();

  constructor(private readonly response: MockResponseInput & { items: RecordedItem[] }) {}

  add(event: ModelEvent): void {
    switch (event.type) {
      case "messageStarted":
        this.message(event.id);
        return;
      case "textDelta":
        this.message(event.id).deltas!.push(event.delta);
        return;
      case "messageDone": {
        const message = this.message(event.id);
        // A wire that gives the text whole (no deltas) is played as one delta.
        if (message.deltas!.length === 0 && event.text) message.deltas!.push(event.text);
        return;
      }
      case "reasoningStarted":
        this.thought(event.id);
        return;
      case "summaryPartAdded": {
        const summary = this.thought(event.id).summary!;
        summary[event.index] ??= "";
        return;
      }
      case "summaryDelta": {
        const summary = this.thought(event.id).summary!;
        summary[event.index] = (summary[event.index] ?? "") + event.delta;
        return;
      }
      case "reasoningTextDelta": {
        const content = (this.thought(event.id).content ??= []);
        content[event.index] = (content[event.index] ?? "") + event.delta;
        return;
      }
      case "reasoningDone": {
        const thought = this.thought(event.item.id);
        thought.summary = [...event.item.summary];
        if (event.item.content?.length) thought.content = [...event.item.content];
        if (event.item.encryptedContent) thought.encryptedContent = event.item.encryptedContent;
        return;
      }
      case "toolCall": {
        const { call } = event;
        this.response.items.push(
          call.type === "function_call"
            ? { type: "function_call", name: call.name, arguments: call.arguments, callId: call.callId }
            : { type: "custom_tool_call", name: call.name, input: call.input, callId: call.callId },
        );
        return;
      }
      case "completed":
        if (event.usage) this.response.usage = usageOf(event.usage);
        else this.response.usage = {};
        return;
    }
  }

  private message(id: string): RecordedItem & { type: "message" } {
    return this.item(this.messages, id, () => ({ type: "message", deltas: [] }));
  }

  private thought(id: string): RecordedItem & { type: "reasoning" } {
    return this.item(this.reasoning, id, () => ({ type: "reasoning", summary: [] }));
  }

  /** The item the model's `id` names, added to the response the first time it is named. */
  private item<T extends RecordedItem>(items: Map<string, T>, id: string, make: () => T): T {
    let item = items.get(id);
    if (!item) {
      item = make();
      items.set(id, item);
      this.response.items.push(item);
    }
    return item;
  }
}

/** Token counts (a model response's, or a `thread/tokenUsage/updated` breakdown) as a scripted response reports them. */
export function usageOf(usage: ModelUsage): NonNullable<MockResponseInput["usage"]> {
  return {
    input_tokens: usage.inputTokens,
    cached_tokens: usage.cachedInputTokens,
    output_tokens: usage.outputTokens,
    reasoning_tokens: usage.reasoningOutputTokens,
    total_tokens: usage.totalTokens,
  };
}
