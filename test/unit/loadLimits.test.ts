import { EventEmitter } from "node:events";
import type { Duplex } from "node:stream";
import { describe, expect, it } from "vitest";
import type { WebSocket } from "ws";
import { ByteBudget } from "../../src/server/byteBudget.js";
import { RequestScheduler } from "../../src/server/requestScheduler.js";
import { InboundBudget } from "../../src/transport/inboundBudget.js";

/** A task that stays pending until the test settles it. */
function held(): { task: () => Promise<void>; finish: () => void } {
  let finish!: () => void;
  const promise = new Promise<void>((resolve) => (finish = resolve));
  return { task: () => promise, finish };
}

const OVERLOADED = { code: -32001, message: "Server overloaded; retry later." };

/** Resolves once every promise callback queued so far has run (the scheduler's bookkeeping included). */
const callbacksRun = () => new Promise((resolve) => setImmediate(resolve));

describe("RequestScheduler admission", () => {
  it("bounds each connection on its own: one at its bound does not stop another", async () => {
    const scheduler = new RequestScheduler({ perConnection: 2, total: 100 });
    const flooder = { owner: {} };
    const other = { owner: {} };
    const hold = held();
    scheduler.run(flooder, undefined, hold.task);
    scheduler.run(flooder, undefined, hold.task);
    expect(() => scheduler.run(flooder, undefined, hold.task)).toThrow(expect.objectContaining(OVERLOADED));
    await expect(scheduler.run(other, undefined, async () => "served")).resolves.toBe("served");
    hold.finish();
    await callbacksRun();
    await expect(scheduler.run(flooder, undefined, async () => "again")).resolves.toBe("again");
  });

  it("bounds all connections together, except requests admitted past the ceiling (initialize)", async () => {
    const scheduler = new RequestScheduler({ perConnection: 2, total: 3 });
    const [a, b, c] = [{ owner: {} }, { owner: {} }, { owner: {} }];
    const hold = held();
    scheduler.run(a, undefined, hold.task);
    scheduler.run(a, undefined, hold.task);
    scheduler.run(b, undefined, hold.task);
    expect(() => scheduler.run(b, undefined, hold.task)).toThrow(expect.objectContaining(OVERLOADED));
    await expect(scheduler.run({ ...c, pastCeiling: true }, undefined, async () => "initialized")).resolves.toBe("initialized");
    expect(() => scheduler.run(c, undefined, hold.task)).toThrow(expect.objectContaining(OVERLOADED));
    // Past the ceiling is not past the connection's own bound.
    scheduler.run({ ...c, pastCeiling: true }, undefined, hold.task);
    scheduler.run({ ...c, pastCeiling: true }, undefined, hold.task);
    expect(() => scheduler.run({ ...c, pastCeiling: true }, undefined, hold.task)).toThrow(expect.objectContaining(OVERLOADED));
    hold.finish();
  });

  it("keeps a lone connection's whole bound when only the per-connection bound is set", () => {
    const scheduler = new RequestScheduler({ perConnection: 2000 });
    const client = { owner: {} };
    const hold = held();
    for (let n = 0; n < 2000; n++) scheduler.run(client, undefined, hold.task);
    expect(() => scheduler.run(client, undefined, hold.task)).toThrow(expect.objectContaining(OVERLOADED));
    hold.finish();
  });

  it("runs requests that share a key in arrival order, whichever connection sent them", async () => {
    const scheduler = new RequestScheduler();
    const [a, b] = [{ owner: {} }, { owner: {} }];
    const order: string[] = [];
    const first = held();
    const runs = [
      scheduler.run(a, "thread:t", async () => {
        await first.task();
        order.push("a1");
      }),
      scheduler.run(b, "thread:t", async () => void order.push("b1")),
      scheduler.run(a, "thread:t", async () => void order.push("a2")),
      scheduler.run(b, undefined, async () => void order.push("b-unordered")),
    ];
    await runs[3];
    first.finish();
    await Promise.all(runs);
    expect(order).toEqual(["b-unordered", "a1", "b1", "a2"]);
  });
});

describe("ByteBudget", () => {
  it("refuses a reservation that does not fit with -32001, and takes it once released", () => {
    const budget = new ByteBudget(100);
    const first = budget.reserve(60);
    expect(() => budget.reserve(50)).toThrow(expect.objectContaining(OVERLOADED));
    const second = budget.reserve(40);
    first();
    first();
    expect(() => budget.reserve(61)).toThrow(expect.objectContaining(OVERLOADED));
    budget.reserve(60);
    second();
  });
});

/** A raw socket and a WebSocket as the inbound budget sees them: bytes read, messages, pause and resume. */
class FakeConnection {
  readonly raw = new EventEmitter();
  readonly socket = Object.assign(new EventEmitter(), {
    isPaused: false,
    pause() {
      this.isPaused = true;
    },
    resume() {
      this.isPaused = false;
    },
  });

  constructor(budget: InboundBudget) {
    budget.meter(this.raw as unknown as Duplex, this.socket as unknown as WebSocket);
  }

  read(bytes: number): void {
    this.raw.emit("data", Buffer.alloc(bytes));
  }

  message(): void {
    this.socket.emit("message", Buffer.alloc(0), false);
  }
}

describe("InboundBudget", () => {
  it("pauses connections that read past the bound, lets one finish its message, then resumes them", () => {
    const budget = new InboundBudget(100);
    const [a, b, c] = [new FakeConnection(budget), new FakeConnection(budget), new FakeConnection(budget)];
    a.read(60);
    b.read(60);
    // b crossed the bound first: it is the finisher and reads on; the others pause as they read.
    expect(b.socket.isPaused).toBe(false);
    a.read(10);
    c.read(10);
    expect([a.socket.isPaused, c.socket.isPaused]).toEqual([true, true]);
    b.read(30);
    b.message();
    expect([a.socket.isPaused, b.socket.isPaused, c.socket.isPaused]).toEqual([false, false, false]);
  });

  it("cannot stall on partial messages: when the finisher is done, a paused one becomes the finisher", () => {
    const budget = new InboundBudget(100);
    const [a, b, c] = [new FakeConnection(budget), new FakeConnection(budget), new FakeConnection(budget)];
    a.read(50);
    b.read(40);
    c.read(20);
    a.read(5);
    b.read(5);
    expect([a.socket.isPaused, b.socket.isPaused, c.socket.isPaused]).toEqual([true, true, false]);
    c.message();
    // Still over the bound (100 held by a and b), yet both read again: the first to read finishes.
    expect([a.socket.isPaused, b.socket.isPaused]).toEqual([false, false]);
    a.read(5);
    b.read(5);
    expect([a.socket.isPaused, b.socket.isPaused]).toEqual([false, true]);
    a.message();
    expect(b.socket.isPaused).toBe(false);
  });

  it("releases what a closed connection held", () => {
    const budget = new InboundBudget(100);
    const [a, b] = [new FakeConnection(budget), new FakeConnection(budget)];
    a.read(90);
    b.read(20);
    b.read(1);
    a.read(1);
    expect(a.socket.isPaused).toBe(true);
    b.socket.emit("close");
    expect(a.socket.isPaused).toBe(false);
    a.read(5);
    expect(a.socket.isPaused).toBe(false);
  });
});
