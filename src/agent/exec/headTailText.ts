/**
 * Text kept as its first and last `half` characters however much is appended, with a count of
 * what was dropped between them. Appending costs the chunk, never the whole kept text, so a
 * command printing hundreds of megabytes neither copies nor holds more than about `2 × half`.
 */
export class HeadTailText {
  private head = "";
  private headFull = false;
  private tail: string[] = [];
  private tailChars = 0;
  private total = 0;

  constructor(private readonly half: number) {}

  /** Characters appended so far. */
  get length(): number {
    return this.total;
  }

  append(text: string): void {
    this.total += text.length;
    let rest = text;
    if (!this.headFull) {
      const room = wholeCharacters(rest, this.half - this.head.length);
      this.head += rest.slice(0, room);
      rest = rest.slice(room);
      if (rest === "") return;
      this.headFull = true;
    }
    this.tail.push(rest);
    this.tailChars += rest.length;
    // Whole chunks leave the front once the rest still covers `half`.
    while (this.tail.length > 1 && this.tailChars - this.tail[0]!.length >= this.half) this.tailChars -= this.tail.shift()!.length;
  }

  /** The kept head and tail, and how many characters between them were dropped. */
  kept(): { head: string; tail: string; dropped: number } {
    const joined = this.tail.join("");
    let start = Math.max(0, joined.length - this.half);
    // Never begin with the second half of a character cut in two.
    if (start > 0 && isLowSurrogate(joined.charCodeAt(start))) start++;
    const tail = joined.slice(start);
    return { head: this.head, tail, dropped: this.total - this.head.length - tail.length };
  }
}

/** How many of the first `count` UTF-16 units of `text` to take so no character is cut in two. */
export function wholeCharacters(text: string, count: number): number {
  if (count <= 0 || count >= text.length) return Math.max(0, Math.min(count, text.length));
  return isHighSurrogate(text.charCodeAt(count - 1)) ? count - 1 : count;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
