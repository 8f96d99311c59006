import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { ClientConnection } from "../../src/server/connection.js";
import { ServerRequestBroker } from "../../src/server/serverRequests.js";
import { NewlineMessageReader } from "../../src/transport/lineReader.js";
import { MAX_QUEUED_OUTPUT, NewlineMessageWriter } from "../../src/transport/lineWriter.js";
import { memoryLogger } from "../support/memoryClient.js";
import { MessageLog } from "../support/messageLog.js";
import { WAIT_MS } from "../support/serverProcess.js";

describe("output backpressure", () => {
  it("stops reading a client's requests while more than 16 MiB of its output is queued, and reads on once it drains", async () => {
    const input = new PassThrough();
    // Nobody reads the output until the test says so: a stdio client that stopped reading.
    const output = new PassThrough();
    const big = "x".repeat(MAX_QUEUED_OUTPUT + 1);
    const writer = new NewlineMessageWriter(output);
    let timer: NodeJS.Timeout | undefined;
    const backedUp = new Promise<void>((resolve, reject) => {
      timer = setTimeout(() => reject(new Error("timed out waiting for the output to back up")), WAIT_MS);
      writer.onBackedUp((isBackedUp) => isBackedUp && resolve());
    });
    const dispatch = async (_connection: unknown, method: string) => (method === "big" ? big : "small");
    const host = { logger: memoryLogger().logger, dispatcher: { dispatch }, serverRequests: new ServerRequestBroker<ClientConnection>() };
    new ClientConnection(host, new NewlineMessageReader(input), writer).listen();

    input.write(JSON.stringify({ id: 1, method: "big" }) + "\n");
    await backedUp.finally(() => clearTimeout(timer));
    input.write(JSON.stringify({ id: 2, method: "small" }) + "\n");
    // Read from a flowing stream, the request would be gone at once; it waits in the input instead.
    expect(input.isPaused()).toBe(true);
    expect(input.readableLength).toBeGreaterThan(0);

    const log = new MessageLog(output);
    expect((await log.response(1)).result.length).toBe(big.length);
    expect((await log.response(2)).result).toBe("small");
  });
});
