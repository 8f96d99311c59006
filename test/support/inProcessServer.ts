import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { PassThrough } from "node:stream";
import type pino from "pino";
import { expect } from "vitest";
import type { Tool } from "../../src/agent/tools/tool.js";
import { buildAppServer } from "../../src/app.js";
import { startMockModel, type MockModel, type MockResponseInput } from "../../src/testing/index.js";
import { memoryLogger } from "./memoryClient.js";
import { MessageLog } from "./messageLog.js";
import { turnViolations } from "./turnInvariants.js";

/** What {@link inProcessServer} builds. */
export interface InProcessServerOptions {
  readonly responses: MockResponseInput[];
  readonly tools?: Tool[];
  /** The server's logger; an in-memory one by default. */
  readonly logger?: pino.Logger;
  /** The client's side of the server's output; a plain pipe by default. */
  readonly output?: PassThrough;
  /** Where the server's teardown is registered, run (last first) after the test. */
  readonly cleanups: Array<() => Promise<void> | void>;
}

/**
 * An in-process server (the same dispatch code as stdio) on a fresh home, talking to a mock model,
 * with one client connected: write requests to `input`, read messages from `log`. After the test
 * the turn invariants are checked on what the client received.
 */
export async function inProcessServer(options: InProcessServerOptions): Promise<{ input: PassThrough; log: MessageLog; mock: MockModel }> {
  const mock = await startMockModel({ responses: options.responses });
  const home = mkdtempSync(path.join(os.tmpdir(), "aas-inproc-"));
  const server = buildAppServer({
    home,
    logger: options.logger ?? memoryLogger().logger,
    ...(options.tools ? { tools: options.tools } : {}),
    env: {},
    config: {
      model: "gpt-5.5",
      model_provider: "mock",
      model_providers: { mock: { base_url: mock.url, request_max_retries: 0, stream_max_retries: 0 } },
    },
  });
  await server.init();
  const input = new PassThrough();
  const output = options.output ?? new PassThrough();
  const log = new MessageLog(output);
  server.connect(input, output);
  options.cleanups.push(() => rmSync(home, { recursive: true, force: true }));
  options.cleanups.push(() => mock.close());
  options.cleanups.push(() => server.shutdown());
  options.cleanups.push(() => expect(turnViolations(log.messages)).toEqual([]));
  return { input, log, mock };
}
