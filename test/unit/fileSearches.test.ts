import { describe, expect, it } from "vitest";
import type { ClientConnection } from "../../src/server/connection.js";
import { FileSearches } from "../../src/server/fileSearches.js";

/** The part of a connection FileSearches uses, with a way to close its input or output. */
function fakeConnection() {
  const listeners = { input: [] as Array<() => void>, output: [] as Array<() => void> };
  const connection = {
    onInputClosed: (listener: () => void) => listeners.input.push(listener),
    onOutputClosed: (listener: () => void) => listeners.output.push(listener),
  } as unknown as ClientConnection;
  const close = (side: "input" | "output") => listeners[side].splice(0).forEach((listener) => listener());
  return { connection, close };
}

describe("FileSearches", () => {
  it("cancels a search when a newer one with its token starts on the same connection", () => {
    const searches = new FileSearches();
    const [one, other] = [fakeConnection(), fakeConnection()];
    const first = searches.begin(one.connection, "t");
    const elsewhere = searches.begin(other.connection, "t");
    const untokened = searches.begin(one.connection, undefined);
    searches.begin(one.connection, "t");
    expect([first.signal.aborted, elsewhere.signal.aborted, untokened.signal.aborted]).toEqual([true, false, false]);
  });

  it.each(["input", "output"] as const)("cancels every search of a connection when its %s closes, and those begun after", (side) => {
    const searches = new FileSearches();
    const [closing, open] = [fakeConnection(), fakeConnection()];
    const running = [searches.begin(closing.connection, "t"), searches.begin(closing.connection, undefined)];
    const ended = searches.begin(closing.connection, undefined);
    ended.end();
    const unaffected = searches.begin(open.connection, undefined);
    closing.close(side);
    expect(running.map((search) => search.signal.aborted)).toEqual([true, true]);
    expect([ended.signal.aborted, unaffected.signal.aborted]).toEqual([false, false]);
    expect(searches.begin(closing.connection, undefined).signal.aborted).toBe(true);
  });
});
