import { describe, expect, it } from "vitest";
import { launch, startThread } from "../support/turnHarness.js";

/**
 * Memory is bounded by what is kept, not by how long a turn runs: a turn of 200,000 deltas, about
 * 35 MB of notifications, runs in a server whose heap is capped at 48 MB while its client reads
 * nothing for a while. A server that queued every delta for the client died out of heap here.
 */
describe("a long streaming turn under a small heap", () => {
  it("streams 200,000 deltas to a client that stops reading, with a 48 MB heap", async () => {
    const deltas = 200_000;
    const { server } = await launch([{ items: [{ type: "message", repeat: deltas, delta: "tok " }] }], {
      env: { NODE_OPTIONS: "--max-old-space-size=48" },
    });
    const threadId = await startThread(server);
    // The client stops reading, as one busy rendering does, until the server says the turn waits for it.
    server.child.stdout.pause();
    server.send({ id: 1, method: "turn/start", params: { threadId, input: [{ type: "text", text: "Stream." }] } });
    const died = new Promise<never>((_, reject) =>
      server.child.once("exit", (code, signal) => reject(new Error(`the server exited (${signal ?? code}) before waiting for its client`))),
    );
    await Promise.race([server.waitForStderr("the client reads its output slower than it is written", 60_000), died]);
    server.child.stdout.resume();

    const completed = await server.waitFor((m) => m.method === "turn/completed", "turn/completed", 120_000);
    expect(completed.params.turn.status).toBe("completed");
    expect(server.messages.filter((m) => m.method === "item/agentMessage/delta")).toHaveLength(deltas);
    const message = server.messages.find((m) => m.method === "item/completed" && m.params.item.type === "agentMessage");
    expect(message.params.item.text).toBe("tok ".repeat(deltas));
  }, 240_000);
});
