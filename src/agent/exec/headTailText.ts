/**
 * Text kept as its first and last `half` characters however much is appended, with a count of
 * what was dropped between them. Appending costs the chunk, never the whole kept text, so a
 * command printing hundreds of megabytes neither copies nor holds more than about `2 × half`.
 */
export class HeadTailText {
  private head = "";
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
    if (this.head.length < this.half) {
      const room = this.half - this.head.length;
      this.head += rest.slice(0, room);
      rest = rest.slice(room);
      if (rest === "") return;
    }
    this.tail.push(rest);
    this.tailChars += rest.length;
    // Whole chunks leave the front once the rest still covers `half`.
    while (this.tail.length > 1 && this.tailChars - this.tail[0]!.length >= this.half) this.tailChars -= this.tail.shift()!.length;
  }

  /** The kept head and tail, and how many characters between them were dropped. */
  kept(): { head: string; tail: string; dropped: number } {
    const joined = this.tail.join("");
    const tail = joined.length > this.half ? joined.slice(joined.length - this.half) : joined;
    return { head: this.head, tail, dropped: this.total - this.head.length - tail.length };
  }
}
