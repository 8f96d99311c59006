// Appending to a string builds a V8 cons-string: a 32-byte node per append, kept until the string
// is next flattened, on top of the appended piece itself. For a stream of 4-character deltas that is
// ten times the text. Pieces are kept in a list instead, and every BLOCK of them joined into one
// flat string, so what is held stays close to the text's own length.
const BLOCK = 1024;

/** Text built from many small appends (a message's deltas), holding about its own length in memory. */
export class TextBuilder {
  private readonly blocks: string[] = [];
  private tail: string[] = [];

  constructor(initial = "") {
    if (initial) this.blocks.push(initial);
  }

  /** Appends a piece at the end. */
  append(piece: string): void {
    this.tail.push(piece);
    if (this.tail.length === BLOCK) {
      this.blocks.push(this.tail.join(""));
      this.tail = [];
    }
  }

  /** The text so far. */
  toString(): string {
    return this.blocks.join("") + this.tail.join("");
  }
}
