import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { PassThrough } from "node:stream";
import { createInterface } from "node:readline";
import { AppServerClient, streamTransport, type AppServerClientOptions, type ClientTransport, type SpawnOptions } from "../../src/client/index.js";
import { startMockModel, type MockModel } from "../../src/testing/index.js";
import { afterEachTest } from "../support/afterEachTest.js";
import { CLI_PATH } from "../support/serverProcess.js";

/** Bound on every wait in these tests. */
export const WAIT_MS = 10_000;

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEachTest(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Runs `cleanup` after the current test. */
export function cleanup(fn: () => Promise<unknown> | unknown): void {
  cleanups.push(fn);
}

export function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "aas-client-"));
  cleanup(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** `promise`, or a rejection naming `what` after `ms`. */
export function within<T>(promise: Promise<T>, what: string, ms = WAIT_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** A promise with its resolver outside. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

export async function mockWith(responses: NonNullable<Parameters<typeof startMockModel>[0]>["responses"]): Promise<MockModel> {
  const mock = await startMockModel({ responses });
  cleanup(() => mock.close());
  return mock;
}

export function providerArgs(url: string): string[] {
  return ["-c", `model_provider="mock"`, "-c", `model_providers.mock={base_url="${url}",request_max_retries=0,stream_max_retries=0}`];
}

/** The built server against `mock`, in a fresh home that is also HOME; closed after the test. */
export async function spawnWithMock(mock: MockModel, options: SpawnOptions & { extraArgs?: string[] } = {}): Promise<AppServerClient> {
  const home = tempDir();
  const client = await AppServerClient.spawn({
    command: [process.execPath, CLI_PATH, "app-server", ...providerArgs(mock.url), ...(options.extraArgs ?? [])],
    env: { ...process.env, AGENT_APP_SERVER_HOME: home, HOME: home, LOG_LEVEL: "warn" },
    ...options,
  });
  cleanup(() => client.close());
  return client;
}

/** The function_call_output the model was sent for `callId`. */
export function toolOutput(body: Record<string, unknown>, callId: string): unknown {
  return (body.input as any[]).find((item) => item.type === "function_call_output" && item.call_id === callId)?.output;
}

/** A server written by the test, over in-memory streams: it answers `initialize`, the test the rest. */
export interface FakeServer {
  readonly client: AppServerClient;
  /** Every message the client sent, in order. */
  readonly seen: any[];
  /** Writes messages to the client, in one chunk (so the client reads them in one go). */
  send(...messages: object[]): void;
  /** The first message the client sent (or sends) that `match` accepts. */
  received(match: (message: any) => boolean, what?: string): Promise<any>;
  /** Ends the server's side of the connection. */
  end(): void;
}

export async function fakeServer(
  handle: (message: any, server: FakeServer) => void = () => undefined,
  options: AppServerClientOptions = {},
): Promise<FakeServer> {
  const toServer = new PassThrough();
  const toClient = new PassThrough();
  const seen: any[] = [];
  const waiters = new Set<() => void>();
  const server: FakeServer = {
    client: undefined as unknown as AppServerClient,
    seen,
    send: (...messages) => void toClient.write(messages.map((message) => JSON.stringify(message) + "\n").join("")),
    received: (match, what = "a client message") => {
      const found = seen.find(match);
      if (found) return Promise.resolve(found);
      return within(
        new Promise((resolve) => {
          const check = (): void => {
            const message = seen.find(match);
            if (!message) return;
            waiters.delete(check);
            resolve(message);
          };
          waiters.add(check);
        }),
        what,
      );
    },
    end: () => void toClient.end(),
  };
  createInterface({ input: toServer }).on("line", (line) => {
    const message = JSON.parse(line);
    seen.push(message);
    if (message.method === "initialize") {
      server.send({ id: message.id, result: { userAgent: "fake/1", codexHome: "/fake", platformFamily: "unix", platformOs: "linux" } });
    } else {
      handle(message, server);
    }
    for (const check of [...waiters]) check();
  });
  const transport: ClientTransport = streamTransport(toClient, toServer, async () => void toServer.end());
  const client = await AppServerClient.start(transport, options);
  cleanup(() => client.close());
  (server as { client: AppServerClient }).client = client;
  return server;
}

/** The turn a fake `turn/start` answers with. */
export function fakeTurn(id: string, status = "inProgress"): object {
  return { id, items: [], status };
}
