import { describe, expect, it } from "vitest";
import { ServerProcess } from "../support/serverProcess.js";

const INIT = { clientInfo: { name: "lifecycle", version: "1" } };

describe("lifecycle", () => {
  it("exits 0 within 2 s of stdin EOF", async () => {
    const server = ServerProcess.start();
    await server.initialize();
    const exit = await server.closeStdin();
    expect(exit).toMatchObject({ code: 0, signal: null });
    expect(exit.elapsedMs).toBeLessThan(2_000);
  });

  it.each(["SIGTERM", "SIGINT"] as const)("exits 0 within 2 s of %s", async (signal) => {
    const server = ServerProcess.start();
    await server.initialize();
    const exit = await server.signal(signal);
    expect(exit).toMatchObject({ code: 0, signal: null });
    expect(exit.elapsedMs).toBeLessThan(2_000);
    await server.waitForStderr(`"reason":"${signal}"`);
  });

  it("answers every request read before EOF, then exits", async () => {
    const server = ServerProcess.start();
    const lines = [JSON.stringify({ id: 0, method: "initialize", params: INIT })];
    for (let id = 1; id <= 50; id++) lines.push(JSON.stringify({ id, method: "initialize", params: INIT }));
    server.sendRaw(lines.join("\n") + "\n");
    const exit = await server.closeStdin();
    expect(exit.code).toBe(0);
    expect(server.messages.map((m) => m.id).sort((a, b) => a - b)).toEqual([...Array(51).keys()]);
  });

  it("keeps stdout to protocol messages over a session with debug logging", async () => {
    const server = ServerProcess.start({ env: { LOG_LEVEL: "debug" } });
    server.sendRaw("garbage\n");
    await server.request("nope", {});
    await server.initialize();
    await server.request("fs/readFile", { path: "/etc/hostname" });
    server.send({ id: 5, result: {} });
    const exit = await server.closeStdin();
    expect(exit.code).toBe(0);
    // The harness has parsed every stdout line; any non-protocol byte would be a violation.
    expect(server.violations).toEqual([]);
    expect(server.messages.length).toBe(4);
    expect(server.stderr).toContain('"msg":"recv"');
    expect(server.stderr).toContain('"msg":"send"');
  });
});
