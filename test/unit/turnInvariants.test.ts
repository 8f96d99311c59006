import { describe, expect, it } from "vitest";
import { turnViolations } from "../support/turnInvariants.js";

const started = (turnId: string, id: string, type: string) => ({ method: "item/started", params: { turnId, item: { id, type } } });
const completed = (turnId: string, id: string, type: string) => ({ method: "item/completed", params: { turnId, item: { id, type } } });
const delta = (turnId: string, itemId: string) => ({ method: "item/agentMessage/delta", params: { turnId, itemId, delta: "x" } });
const turnStarted = (id: string) => ({ method: "turn/started", params: { turn: { id } } });
const turnCompleted = (id: string) => ({ method: "turn/completed", params: { turn: { id } } });

describe("turn lifecycle invariants", () => {
  it("lets steered input cut off the agent message in flight, as Codex does", () => {
    const messages = [
      turnStarted("t"),
      started("t", "u1", "userMessage"),
      completed("t", "u1", "userMessage"),
      started("t", "m1", "agentMessage"),
      delta("t", "m1"),
      started("t", "u2", "userMessage"),
      completed("t", "u2", "userMessage"),
      started("t", "m2", "agentMessage"),
      completed("t", "m2", "agentMessage"),
      turnCompleted("t"),
    ];
    expect(turnViolations(messages)).toEqual([]);
  });

  it("still flags an agent message left open with no input cutting it, and anything sent for a cut one", () => {
    const open = [turnStarted("t"), started("t", "m1", "agentMessage"), turnCompleted("t")];
    expect(turnViolations(open)).toEqual(["item m1 still open at turn/completed of t"]);
    const after = [turnStarted("t"), started("t", "m1", "agentMessage"), started("t", "u2", "userMessage"), delta("t", "m1"), completed("t", "m1", "agentMessage")];
    expect(turnViolations(after)).toEqual([
      "item/agentMessage/delta for item m1 that is not open",
      "item m1 completed after steered input cut it off",
      "turn t completed 0 times",
    ]);
  });

  it("does not let input cut off a tool item or an item of another turn", () => {
    const messages = [
      turnStarted("a"),
      turnStarted("b"),
      started("a", "m1", "agentMessage"),
      started("b", "c1", "commandExecution"),
      started("b", "u2", "userMessage"),
      completed("b", "u2", "userMessage"),
      turnCompleted("a"),
      turnCompleted("b"),
    ];
    expect(turnViolations(messages)).toEqual(["item m1 still open at turn/completed of a", "item c1 still open at turn/completed of b"]);
  });
});
