import { describe, expect, it } from "vitest";
import { colourWanted } from "../../src/cli/demo.js";

describe("demo colours", () => {
  it("colours a terminal only", () => {
    expect(colourWanted({}, true)).toBe(true);
    expect(colourWanted({}, false)).toBe(false);
  });

  it("honours NO_COLOR (set and not empty) and TERM=dumb on a terminal", () => {
    expect(colourWanted({ NO_COLOR: "1" }, true)).toBe(false);
    expect(colourWanted({ NO_COLOR: "" }, true)).toBe(true);
    expect(colourWanted({ TERM: "dumb" }, true)).toBe(false);
  });

  it("lets FORCE_COLOR decide when set, over the output and NO_COLOR", () => {
    expect(colourWanted({ FORCE_COLOR: "1" }, false)).toBe(true);
    expect(colourWanted({ FORCE_COLOR: "" }, false)).toBe(true);
    expect(colourWanted({ FORCE_COLOR: "1", NO_COLOR: "1" }, false)).toBe(true);
    expect(colourWanted({ FORCE_COLOR: "0" }, true)).toBe(false);
    expect(colourWanted({ FORCE_COLOR: "false" }, true)).toBe(false);
  });
});
