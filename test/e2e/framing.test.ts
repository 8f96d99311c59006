import { describe, expect, it } from "vitest";
import { ServerProcess } from "../support/serverProcess.js";

const INIT = { clientInfo: { name: "framing", version: "1" } };

describe("framing", () => {
  it("accepts messages with and without jsonrpc, and writes none by default", async () => {
    const server = ServerProcess.start();
    server.sendRaw(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: INIT }) + "\n");
    const first = await server.waitFor((m) => m.id === 1);
    expect(first.result).toBeDefined();
    const second = await server.request("initialize", INIT, 2);
    expect(second.error.message).toBe("Already initialized");
    for (const message of server.messages) expect(message).not.toHaveProperty("jsonrpc");
  });

  it("writes jsonrpc on every message with --jsonrpc", async () => {
    const server = ServerProcess.start({ args: ["app-server", "--jsonrpc"] });
    await server.request("initialize", INIT, 1);
    server.sendRaw("oops\n");
    await server.waitFor((m) => m.id === null);
    for (const message of server.messages) expect(message.jsonrpc).toBe("2.0");
  });

  it("accepts CRLF line endings and blank lines", async () => {
    const server = ServerProcess.start();
    server.sendRaw("\r\n\n" + JSON.stringify({ id: 1, method: "initialize", params: INIT }) + "\r\n");
    server.sendRaw(JSON.stringify({ id: 2, method: "initialize", params: INIT }) + "\r\n");
    expect((await server.waitFor((m) => m.id === 1)).result).toBeDefined();
    expect((await server.waitFor((m) => m.id === 2)).error.message).toBe("Already initialized");
  });

  it("reassembles a message split across writes and splits messages sharing a write", async () => {
    const server = ServerProcess.start();
    const line = JSON.stringify({ id: 1, method: "initialize", params: INIT }) + "\n";
    server.sendRaw(line.slice(0, 10));
    server.sendRaw(line.slice(10) + JSON.stringify({ id: 2, method: "initialize", params: INIT }) + "\n");
    expect((await server.waitFor((m) => m.id === 1)).result).toBeDefined();
    expect((await server.waitFor((m) => m.id === 2)).error).toBeDefined();
  });

  it("passes a 10 MiB message", async () => {
    const server = ServerProcess.start();
    const title = "x".repeat(10 * 1024 * 1024);
    const response = await server.request("initialize", { clientInfo: { name: "big", title, version: "1" } });
    expect(response.result.userAgent).toContain("big/");
  });

  it("answers a line over the limit with an error and goes on", async () => {
    const server = ServerProcess.start({ args: ["app-server", "--max-line-bytes", "4096"] });
    server.sendRaw(JSON.stringify({ id: 1, method: "initialize", params: { ...INIT, pad: "y".repeat(10_000) } }) + "\n");
    const error = await server.waitFor((m) => m.id === null);
    expect(error.error).toEqual({
      code: -32600,
      message: expect.stringMatching(/^Invalid request: message of \d+ bytes exceeds the limit of 4096 bytes$/),
    });
    const ok = await server.request("initialize", INIT, 2);
    expect(ok.result).toBeDefined();
  });

  it("handles a final line without a newline before EOF", async () => {
    const server = ServerProcess.start();
    server.sendRaw(JSON.stringify({ id: 1, method: "initialize", params: INIT }));
    const exit = await server.closeStdin();
    expect(exit.code).toBe(0);
    expect(server.messages.find((m) => m.id === 1)?.result).toBeDefined();
  });
});
