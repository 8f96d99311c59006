import { describe, expect, it } from "vitest";
import { ServerProcess } from "../support/serverProcess.js";

/** Sends a line and returns the next error response with the given id. */
async function answerTo(server: ServerProcess, line: string, id: unknown = null): Promise<any> {
  const before = server.messages.length;
  server.sendRaw(line + "\n");
  return server.waitFor((m) => server.messages.indexOf(m) >= before && m.id === id && m.error, `error for ${line}`);
}

/** Proves the server still serves after an error. */
async function stillServes(server: ServerProcess): Promise<void> {
  const response = await server.request("initialize", { clientInfo: { name: "x", version: "1" } });
  expect(response.error?.message ?? "initialized").toMatch(/Already initialized|initialized/);
}

describe("error answers", () => {
  it("answers malformed JSON with -32700 and id null", async () => {
    const server = ServerProcess.start();
    const response = await answerTo(server, "this is not json");
    expect(response.error.code).toBe(-32700);
    expect(response.error.message).toMatch(/^Parse error: /);
    await server.waitForStderr("rejected input: Parse error");
    await stillServes(server);
  });

  it.each([
    ["a batch", '[{"id":1,"method":"initialize"}]', "batch requests are not supported"],
    ["a null message", "null", "must be a JSON object"],
    ["a number", "42", "must be a JSON object"],
    ["a null id", '{"id":null,"method":"initialize","params":{}}', "`id` must be a string or an integer"],
    ["a fractional id", '{"id":10.5,"method":"initialize","params":{}}', "`id` must be a string or an integer"],
    ["an object id", '{"id":{},"method":"initialize"}', "`id` must be a string or an integer"],
  ])("answers %s with -32600 and id null", async (_name, line, text) => {
    const server = ServerProcess.start();
    const response = await answerTo(server, line);
    expect(response.error.code).toBe(-32600);
    expect(response.error.message).toContain(text);
    await stillServes(server);
  });

  it("answers an object that is no message with -32600 and its id", async () => {
    const server = ServerProcess.start();
    const response = await answerTo(server, '{"id":2}', 2);
    expect(response.error.code).toBe(-32600);
    const noMethod = await answerTo(server, '{"id":3,"method":7}', 3);
    expect(noMethod.error.message).toContain("`method` must be a non-empty string");
    await stillServes(server);
  });

  it("answers an unknown method with -32601 naming it, before and after initialize", async () => {
    const server = ServerProcess.start();
    const before = await server.request("no/such/method", {});
    expect(before.error).toMatchObject({ code: -32601, message: "Method not found: no/such/method" });
    await server.initialize();
    const after = await server.request("no/such/method");
    expect(after.error).toMatchObject({ code: -32601, message: "Method not found: no/such/method" });
  });

  it("answers a Codex method we do not implement with -32601 saying so", async () => {
    const server = ServerProcess.start();
    await server.initialize();
    const response = await server.request("thread/search", {});
    expect(response.error.code).toBe(-32601);
    expect(response.error.message).toMatch(/^Method not implemented: thread\/search/);
  });

  it("answers invalid params with -32602 naming each field path", async () => {
    const server = ServerProcess.start();
    const response = await server.request("initialize", { clientInfo: { name: 7 }, capabilities: { experimentalApi: "yes" } });
    expect(response.error.code).toBe(-32602);
    expect(response.error.message).toContain("params.clientInfo.name: Invalid input: expected string, received number");
    expect(response.error.message).toContain("params.clientInfo.version: missing required field (expected string)");
    expect(response.error.message).toContain("params.capabilities.experimentalApi");
    expect(response.error.data.issues[0].path).toEqual(["clientInfo", "name"]);
    await server.initialize();
  });

  it("answers missing params with -32602 naming the missing field", async () => {
    const server = ServerProcess.start();
    const response = await server.request("initialize");
    expect(response.error.code).toBe(-32602);
    expect(response.error.message).toContain("params.clientInfo: missing required field");
    await server.initialize();
  });

  it("ignores unknown extra fields in params", async () => {
    const server = ServerProcess.start();
    const response = await server.request("initialize", {
      clientInfo: { name: "x", version: "1", futureField: true },
      capabilities: { somethingNew: 1 },
      bogusField: "ignored",
    });
    expect(response.result.codexHome).toBe(server.home);
  });

  it("never answers notifications, known or not, and ignores stray responses", async () => {
    const server = ServerProcess.start();
    server.send({ method: "initialized" });
    server.send({ method: "some/unknown/notification", params: { x: 1 } });
    server.send({ id: 99, result: { decision: "accept" } });
    server.send({ id: 98, error: { code: -1, message: "client-side failure" } });
    server.send({ id: null, error: { code: -32700, message: "client could not parse" } });
    await server.initialize();
    expect(server.messages.map((m) => m.id)).toEqual([1000]);
    await server.waitForStderr("ignored a response to no pending server request");
  });
});
