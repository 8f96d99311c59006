import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { PassThrough } from "node:stream";
import { createInterface } from "node:readline";
import { afterEach, describe, expect, it } from "vitest";
import { AppServerClient, AppServerError, streamTransport, TurnFailedError } from "../../src/client/index.js";
import { createAppServer } from "../../src/index.js";
import { startMockModel, type MockModel } from "../../src/testing/index.js";
import { memoryLogger } from "../support/memoryClient.js";
import { CLI_PATH } from "../support/serverProcess.js";

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A fresh server home that is also HOME, so `bash -lc` sources no user profile. */
function isolatedHome(): { AGENT_APP_SERVER_HOME: string; HOME: string } {
  const home = tempDir();
  return { AGENT_APP_SERVER_HOME: home, HOME: home };
}

function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "aas-client-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function mockWith(responses: NonNullable<Parameters<typeof startMockModel>[0]>["responses"]): Promise<MockModel> {
  const mock = await startMockModel({ responses });
  cleanups.push(() => mock.close());
  return mock;
}

const escalatedEcho = [
  { items: [{ type: "exec" as const, cmd: "echo approved", callId: "call_1", sandbox_permissions: "require_escalated", justification: "why" }] },
  { items: [{ type: "message" as const, text: "done" }] },
];

function providerArgs(url: string): string[] {
  return ["-c", `model_provider="mock"`, "-c", `model_providers.mock={base_url="${url}",request_max_retries=0,stream_max_retries=0}`];
}

/** A client of createAppServer over in-memory streams, its provider the mock at `url`; both closed after the test. */
async function inProcessClient(url: string): Promise<AppServerClient> {
  const server = await createAppServer({
    home: tempDir(),
    logger: memoryLogger().logger,
    config: { model_provider: "mock", model_providers: { mock: { base_url: url, request_max_retries: 0, stream_max_retries: 0 } } },
  });
  cleanups.push(() => server.shutdown());
  const client = await AppServerClient.inProcess(server);
  cleanups.push(() => client.close());
  return client;
}

describe("AppServerClient against a spawned server", () => {
  it("runs a text turn and collects its text", async () => {
    const mock = await mockWith([{ items: [{ type: "message", deltas: ["Hello ", "there."] }] }]);
    const client = await AppServerClient.spawn({
      command: [process.execPath, CLI_PATH, "app-server", ...providerArgs(mock.url)],
      env: { ...process.env, ...isolatedHome(), LOG_LEVEL: "warn" },
    });
    cleanups.push(() => client.close());
    const deltas: string[] = [];
    client.on("item/agentMessage/delta", (params) => deltas.push(params.delta));
    const { thread } = await client.startThread({ cwd: tempDir() });
    const text = await AppServerClient.collectText(client.runTurn(thread.id, "Say hello."));
    expect(text).toBe("Hello there.");
    expect(deltas).toEqual(["Hello ", "there."]);
  });

  it("answers approvals with its handler: accept runs the command, the default declines", async () => {
    for (const [decision, status] of [["accept", "completed"], [undefined, "declined"]] as const) {
      const mock = await mockWith(escalatedEcho);
      const client = await AppServerClient.spawn({
        command: [process.execPath, CLI_PATH, "app-server", ...providerArgs(mock.url), "-c", `approval_policy="on-request"`, "-c", `sandbox_mode="workspace-write"`],
        env: { ...process.env, ...isolatedHome(), LOG_LEVEL: "warn" },
      });
      cleanups.push(() => client.close());
      const asked: string[] = [];
      if (decision) {
        client.onCommandApproval((params) => {
          asked.push(params.command ?? "");
          return decision;
        });
      }
      const { thread } = await client.startThread({ cwd: tempDir() });
      const events = [];
      for await (const event of client.runTurn(thread.id, "Run it.")) events.push(event);
      const item = events.find((event) => event.method === "item/completed" && event.params.item.type === "commandExecution");
      expect(item?.method === "item/completed" && item.params.item.type === "commandExecution" && item.params.item.status).toBe(status);
      expect(asked).toEqual(decision ? ["/bin/bash -lc 'echo approved'"] : []);
      expect(events.at(-1)?.method).toBe("turn/completed");
    }
  });

  it("throws typed errors carrying the JSON-RPC code", async () => {
    const client = await AppServerClient.spawn({
      command: [process.execPath, CLI_PATH, "app-server"],
      env: { ...process.env, ...isolatedHome(), LOG_LEVEL: "warn" },
    });
    cleanups.push(() => client.close());
    const failure = await client.request("thread/read", { threadId: "00000000-0000-7000-8000-000000000000" }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AppServerError);
    expect(failure).toMatchObject({ code: -32600, message: "thread not found: 00000000-0000-7000-8000-000000000000" });
  });
});

describe("AppServerClient in-process", () => {
  it("talks to createAppServer over in-memory streams, with the same dispatch as stdio", async () => {
    const mock = await mockWith([{ items: [{ type: "message", text: "in process" }] }]);
    const client = await inProcessClient(mock.url);
    const { thread } = await client.startThread({});
    expect(await AppServerClient.collectText(client.runTurn(thread.id, "Hi"))).toBe("in process");
    const unknown = await client.request("thread/read", { threadId: "nope" }).catch((error: AppServerError) => error);
    expect(unknown).toMatchObject({ code: -32600 });
  });

  it("rejects text() of a turn that failed with the turn and its error, not an empty answer", async () => {
    // The provider is down (as in docs/embedding.md's in-process example): the turn fails.
    const mock = await mockWith([{ httpStatus: 500, errorBody: { error: { message: "the provider is down" } } }]);
    const client = await inProcessClient(mock.url);
    const { thread } = await client.startThread({});
    const turn = client.runTurn(thread.id, "Hi");
    const failure = await turn.text().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TurnFailedError);
    expect((failure as TurnFailedError).turn).toMatchObject({ status: "failed" });
    expect((failure as TurnFailedError).error?.message).toContain("the provider is down");
    expect((failure as TurnFailedError).message).toMatch(/^turn .+ failed: .*the provider is down/);
    expect(turn.turn).toMatchObject({ status: "failed" });
  });
});

describe("AppServerClient against a hand-written fake server", () => {
  it("needs nothing but the protocol", async () => {
    const toServer = new PassThrough();
    const toClient = new PassThrough();
    const seen: any[] = [];
    createInterface({ input: toServer }).on("line", (line) => {
      const message = JSON.parse(line);
      seen.push(message);
      const reply = (value: object) => toClient.write(JSON.stringify(value) + "\n");
      if (message.method === "initialize") reply({ id: message.id, result: { userAgent: "fake/1", codexHome: "/fake", platformFamily: "unix", platformOs: "linux" } });
      if (message.method === "thread/start") {
        reply({ method: "warning", params: { message: "fake warning" } });
        reply({ id: 7, method: "item/fileChange/requestApproval", params: { threadId: "t", turnId: "u", itemId: "i", startedAtMs: 1 } });
        reply({ id: message.id, error: { code: -32601, message: "not in this fake", data: { why: "fake" } } });
      }
    });
    const client = await AppServerClient.start(streamTransport(toClient, toServer, async () => void toServer.end()));
    const garbage: string[] = [];
    client.onProtocolError((text) => garbage.push(text));
    toClient.write("Debugger listening on ws://127.0.0.1:9229\n[1,2]\n");
    const warnings: string[] = [];
    client.on("warning", (params) => warnings.push(params.message));
    const failure = await client.startThread({}).catch((error: AppServerError) => error);
    expect(failure).toMatchObject({ name: "AppServerError", code: -32601, data: { why: "fake" } });
    expect(warnings).toEqual(["fake warning"]);
    expect(garbage).toEqual(["Debugger listening on ws://127.0.0.1:9229", "[1,2]"]);
    expect(seen.map((m) => m.method ?? `answer#${m.id}`)).toEqual(["initialize", "initialized", "thread/start", "answer#7"]);
    expect(seen.at(-1)).toEqual({ id: 7, result: { decision: "decline" } });
  });
});

describe("AppServerClient when the server goes away", () => {
  it("ends runTurn with an AppServerError instead of waiting forever", async () => {
    const toServer = new PassThrough();
    const toClient = new PassThrough();
    createInterface({ input: toServer }).on("line", (line) => {
      const message = JSON.parse(line);
      const reply = (value: object) => toClient.write(JSON.stringify(value) + "\n");
      if (message.method === "initialize") reply({ id: message.id, result: { userAgent: "fake/1", codexHome: "/f", platformFamily: "unix", platformOs: "linux" } });
      if (message.method === "turn/start") {
        reply({ id: message.id, result: { turn: { id: "u", items: [], status: "inProgress" } } });
        reply({ method: "turn/started", params: { threadId: "t", turn: { id: "u", items: [], status: "inProgress" } } });
        toClient.end();
      }
    });
    const client = await AppServerClient.start(streamTransport(toClient, toServer, async () => void toServer.end()));
    const failure = await AppServerClient.collectText(client.runTurn("t", "hi")).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AppServerError);
    expect((failure as AppServerError).message).toContain("closed");
  });
});

describe("the client's dependencies", () => {
  it("imports nothing of the server: only the protocol, its own files and Node", async () => {
    const { readdirSync, readFileSync } = await import("node:fs");
    const dir = path.resolve("src/client");
    for (const file of readdirSync(dir)) {
      const imports = [...readFileSync(path.join(dir, file), "utf8").matchAll(/from "([^"]+)"/g)].map((match) => match[1]!);
      for (const target of imports) {
        expect(target.startsWith("./") || target.startsWith("../protocol/") || target.startsWith("node:") || target === "ws", `${file} imports ${target}`).toBe(true);
      }
    }
  });
});
