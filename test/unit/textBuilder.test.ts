import { describe, expect, it } from "vitest";
import { TextBuilder } from "../../src/runtime/textBuilder.js";

describe("TextBuilder", () => {
  it("gives back exactly what was appended, across the blocks it joins", () => {
    const text = new TextBuilder("start:");
    const pieces = Array.from({ length: 2500 }, (_, n) => `${n},`);
    for (const piece of pieces) text.append(piece);
    expect(text.toString()).toBe(`start:${pieces.join("")}`);
    text.append("end");
    expect(text.toString()).toBe(`start:${pieces.join("")}end`);
  });

  it("is empty before anything is appended", () => {
    expect(new TextBuilder().toString()).toBe("");
  });
});
