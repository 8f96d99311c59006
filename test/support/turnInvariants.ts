const DELTA_METHODS = new Set([
  "item/agentMessage/delta",
  "item/plan/delta",
  "item/reasoning/summaryTextDelta",
  "item/reasoning/summaryPartAdded",
  "item/reasoning/textDelta",
  "item/commandExecution/outputDelta",
]);

/** Model output that streams into its item; queued input can cut it off (see {@link turnViolations}). */
const STREAMED_OUTPUT = new Set(["agentMessage", "reasoning"]);

/**
 * The lifecycle invariants of turns, checked over everything a client received: every item goes
 * `item/started` → deltas → `item/completed` within its turn; every turn that started, and every
 * turn a `turn/start` response named, ends in exactly one `turn/completed`. One exception, as in
 * Codex: input steered into a running turn cuts the model response in flight, and the agent
 * message or reasoning it was streaming never completes. Such an item is dropped when a
 * `userMessage` starts in its turn; nothing may follow for it.
 */
export function turnViolations(messages: readonly any[]): string[] {
  const problems: string[] = [];
  /** Open items: their turn and type. */
  const open = new Map<string, { turn: string; type: string }>();
  const dropped = new Set<string>();
  const completedTurns = new Map<string, number>();
  const expectedTurns = new Set<string>();
  for (const message of messages) {
    const params = message.params ?? {};
    if (message.result?.turn?.id) expectedTurns.add(message.result.turn.id);
    switch (message.method) {
      case "turn/started":
        expectedTurns.add(params.turn.id);
        break;
      case "item/started":
        if (open.has(params.item.id)) problems.push(`item ${params.item.id} started twice`);
        if (params.item.type === "userMessage") {
          for (const [item, { turn, type }] of open) {
            if (turn === params.turnId && STREAMED_OUTPUT.has(type)) {
              open.delete(item);
              dropped.add(item);
            }
          }
        }
        open.set(params.item.id, { turn: params.turnId, type: params.item.type });
        break;
      case "item/completed":
        if (dropped.has(params.item.id)) problems.push(`item ${params.item.id} completed after steered input cut it off`);
        else if (!open.delete(params.item.id)) problems.push(`item ${params.item.id} completed without being started`);
        break;
      case "turn/completed": {
        const id = params.turn.id;
        completedTurns.set(id, (completedTurns.get(id) ?? 0) + 1);
        for (const [item, { turn }] of open) if (turn === id) problems.push(`item ${item} still open at turn/completed of ${id}`);
        break;
      }
      default:
        if (DELTA_METHODS.has(message.method) && !open.has(params.itemId)) {
          problems.push(`${message.method} for item ${params.itemId} that is not open`);
        }
    }
  }
  for (const id of expectedTurns) {
    const count = completedTurns.get(id) ?? 0;
    if (count !== 1) problems.push(`turn ${id} completed ${count} times`);
  }
  return problems;
}
