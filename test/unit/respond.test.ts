import { describe, expect, it } from "vitest";
import type { RequestContext } from "../../src/server/dispatcher.js";
import { respond } from "../../src/server/handlers/respond.js";

/** A context that records which hook each callback was given to. */
function recordingContext() {
  const hooks: Array<[string, () => void]> = [];
  const context = {
    afterResponse: (fn: () => void) => void hooks.push(["afterResponse", fn]),
    whenAnswerWritten: (fn: () => void) => void hooks.push(["whenAnswerWritten", fn]),
  } as unknown as RequestContext;
  return { context, hooks };
}

describe("respond", () => {
  it("runs the notifications after the response and the background work once the answer is written", () => {
    const { context, hooks } = recordingContext();
    const after = () => undefined;
    const afterWritten = () => undefined;
    expect(respond(context, { result: 42, after, afterWritten })).toBe(42);
    expect(hooks).toEqual([
      ["afterResponse", after],
      ["whenAnswerWritten", afterWritten],
    ]);
  });

  it("registers nothing for an outcome without follow-ups", () => {
    const { context, hooks } = recordingContext();
    expect(respond(context, { result: "r" })).toBe("r");
    expect(hooks).toEqual([]);
  });
});
