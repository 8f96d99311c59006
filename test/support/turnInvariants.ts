const DELTA_METHODS = new Set([
  "item/agentMessage/delta",
  "item/plan/delta",
  "item/reasoning/summaryTextDelta",
  "item/reasoning/summaryPartAdded",
  "item/reasoning/textDelta",
  "item/commandExecution/outputDelta",
]);

/**
 * The lifecycle invariants of turns, checked over everything a client received: every item goes
 * `item/started` → deltas → `item/completed` within its turn; every turn that started, and every
 * turn a `turn/start` response named, ends in exactly one `turn/completed`.
 */
export function turnViolations(messages: readonly any[]): string[] {
  const problems: string[] = [];
  const open = new Map<string, string>();
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
        open.set(params.item.id, params.turnId);
        break;
      case "item/completed":
        if (!open.delete(params.item.id)) problems.push(`item ${params.item.id} completed without being started`);
        break;
      case "turn/completed": {
        const id = params.turn.id;
        completedTurns.set(id, (completedTurns.get(id) ?? 0) + 1);
        for (const [item, turn] of open) if (turn === id) problems.push(`item ${item} still open at turn/completed of ${id}`);
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
