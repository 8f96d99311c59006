import { describe, expect, it } from "vitest";
import { TimeSlice } from "../../src/runtime/timeSlice.js";

describe("TimeSlice", () => {
  it("lets queued callbacks run once the slice is used up", async () => {
    let ran = false;
    setImmediate(() => (ran = true));
    await new TimeSlice(0).pause();
    expect(ran).toBe(true);
  });

  it("keeps the event loop while the slice lasts", async () => {
    let ran = false;
    const queued = setImmediate(() => (ran = true));
    await new TimeSlice(60_000).pause();
    expect(ran).toBe(false);
    clearImmediate(queued);
  });
});
