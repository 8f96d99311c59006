import { describe, expect, it } from "vitest";
import { ServerProcess } from "../support/serverProcess.js";

describe("initialize", () => {
  it("answers with the user agent, home and platform", async () => {
    const server = ServerProcess.start();
    const result = await server.initialize();
    expect(result).toEqual({
      userAgent: expect.stringMatching(/^aas-test\/0\.169\.0 \(.+\) agent-app-server\/\d+\.\d+\.\d+ \(aas-test; 0\.0\.1\)$/),
      codexHome: server.home,
      platformFamily: "unix",
      platformOs: process.platform === "darwin" ? "macos" : "linux",
    });
  });

  it("refuses any other protocol request before initialize, then serves after it", async () => {
    const server = ServerProcess.start();
    const early = await server.request("thread/start", {});
    expect(early.error).toEqual({ code: -32600, message: "Not initialized" });
    await server.initialize();
    const later = await server.request("thread/start", {});
    expect(later.result.thread.status).toEqual({ type: "idle" });
  });

  it("refuses a second initialize and keeps serving", async () => {
    const server = ServerProcess.start();
    await server.initialize();
    const second = await server.request("initialize", { clientInfo: { name: "again", version: "1" } });
    expect(second.error).toEqual({ code: -32600, message: "Already initialized" });
    const third = await server.request("initialize", { clientInfo: { name: "again", version: "1" } });
    expect(third.error.message).toBe("Already initialized");
  });

  it("rejects a client name that cannot be an HTTP header value, as Codex does", async () => {
    const server = ServerProcess.start();
    const response = await server.request("initialize", { clientInfo: { name: "bad\nname", version: "1" } });
    expect(response.error).toEqual({
      code: -32600,
      message: "Invalid clientInfo.name: 'bad\nname'. Must be a valid HTTP header value.",
    });
    await server.initialize();
  });

  it("accepts a string request id and echoes it with its type", async () => {
    const server = ServerProcess.start();
    const response = await server.request("initialize", { clientInfo: { name: "x", version: "1" } }, "init-1");
    expect(response.id).toBe("init-1");
    expect(response.result.codexHome).toBe(server.home);
  });

  it("sends no response to the initialized notification", async () => {
    const server = ServerProcess.start();
    await server.initialize();
    const after = await server.request("initialize", { clientInfo: { name: "x", version: "1" } }, "probe");
    expect(server.messages.map((m) => m.id)).toEqual([1000, "probe"]);
    expect(after.error.message).toBe("Already initialized");
  });
});
