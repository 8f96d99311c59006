import { describe, expect, it } from "vitest";
import { HeadTailText, wholeCharacters } from "../../src/agent/exec/headTailText.js";

describe("HeadTailText", () => {
  it("keeps everything while it fits", () => {
    const text = new HeadTailText(10);
    for (const chunk of ["abc", "defgh", "ijklmnop"]) text.append(chunk);
    expect(text.kept()).toEqual({ head: "abcdefghij", tail: "klmnop", dropped: 0 });
    expect(text.length).toBe(16);
  });

  it("keeps the first and last `half` characters of any amount, in chunks of any size", () => {
    const all = Array.from({ length: 5000 }, (_, i) => String.fromCharCode(97 + (i % 26)).repeat(1 + (i % 7))).join("");
    for (const size of [1, 7, 64, 1000, all.length]) {
      const text = new HeadTailText(100);
      for (let at = 0; at < all.length; at += size) text.append(all.slice(at, at + size));
      expect(text.kept(), `chunks of ${size}`).toEqual({ head: all.slice(0, 100), tail: all.slice(-100), dropped: all.length - 200 });
      expect(text.length).toBe(all.length);
    }
  });

  it("never cuts a character in two at the head's end or the tail's start", () => {
    const text = new HeadTailText(5);
    text.append(`abcd${"😀".repeat(10)}`);
    const { head, tail, dropped } = text.kept();
    expect(head).toBe("abcd");
    expect(tail).toBe("😀😀");
    expect(head.length + tail.length + dropped).toBe(24);
    expect(wholeCharacters("ab😀", 3)).toBe(2);
    expect(wholeCharacters("ab😀", 4)).toBe(4);
  });
});
