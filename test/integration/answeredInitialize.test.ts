import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { buildAppServer } from "../../src/app.js";
import { describeServer } from "../../src/server/serverDescription.js";
import { serializeMessage } from "../../src/transport/lineFormat.js";
import { memoryLogger } from "../support/memoryClient.js";
import { MessageLog } from "../support/messageLog.js";

const CLIENT = { name: "editor", version: "2.0" };
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** An in-process server connected with an `initialize` already answered as `line`. */
async function connectAnswered(params: unknown, line: (home: string) => string) {
  const home = mkdtempSync(path.join(os.tmpdir(), "aas-answered-"));
  const { logger, lines } = memoryLogger();
  const server = buildAppServer({ home, logger, env: {}, config: {} });
  await server.init();
  const input = new PassThrough();
  const output = new PassThrough();
  const log = new MessageLog(output);
  server.connect(input, output, { answered: { id: 1, params, line: line(home) } });
  cleanups.push(() => rmSync(home, { recursive: true, force: true }));
  cleanups.push(() => server.shutdown());
  input.write('{"id":2,"method":"thread/list","params":{}}\n');
  const list = await log.response(2);
  return { list, log, errors: lines.map((text) => JSON.parse(text)).filter((entry) => entry.level >= 50) };
}

describe("connect with an initialize answered before the server loaded", () => {
  it("serves it as answered: the connection is initialized, and nothing more is written for it", async () => {
    const { list, log, errors } = await connectAnswered({ clientInfo: CLIENT }, (home) => serializeMessage({ id: 1, result: describeServer(CLIENT, home) }, false));
    expect(list.result).toEqual({ data: [], readStates: {}, nextCursor: null, backwardsCursor: null });
    expect(log.messages.map((message) => message.id)).toEqual([2]);
    expect(errors).toEqual([]);
  });

  it("logs an error when the response written differs from the server's", async () => {
    const { list, errors } = await connectAnswered({ clientInfo: CLIENT }, () => '{"id":1,"result":{}}\n');
    expect(list.result.data).toEqual([]);
    expect(errors.map((entry) => entry.msg)).toEqual(["the early initialize response differs from the server's"]);
  });

  it("logs an error, and stays uninitialized, when the server refuses what was answered", async () => {
    const { list, errors } = await connectAnswered({ clientInfo: { name: "no version" } }, () => '{"id":1,"result":{}}\n');
    expect(list.error).toEqual({ code: -32600, message: "Not initialized" });
    expect(errors.map((entry) => entry.msg)).toEqual(["the server refuses the initialize answered early"]);
  });
});
