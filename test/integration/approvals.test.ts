import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { buildAppServer } from "../../src/app.js";
import type { AppServer } from "../../src/server/appServer.js";
import { startMockModel } from "../../src/testing/index.js";
import { memoryLogger } from "../support/memoryClient.js";
import { MessageLog } from "../support/messageLog.js";
import { turnViolations } from "../support/turnInvariants.js";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** One client of an in-process server: its messages, requests and raw sends. */
interface Client {
  readonly log: MessageLog;
  request(method: string, params: object): Promise<any>;
  send(message: object): void;
}

async function serverWithClients(count: number): Promise<{ server: AppServer; clients: Client[]; connect: () => Promise<Client> }> {
  const mock = await startMockModel({
    responses: [
      { items: [{ type: "exec", cmd: "echo approved", callId: "call_1", sandbox_permissions: "require_escalated", justification: "why" }] },
      { items: [{ type: "message", text: "ok" }] },
    ],
  });
  const home = mkdtempSync(path.join(os.tmpdir(), "aas-approvals-"));
  const server = buildAppServer({
    home,
    logger: memoryLogger().logger,
    env: { ...process.env, HOME: home },
    config: {
      model_provider: "mock",
      model_providers: { mock: { base_url: mock.url, request_max_retries: 0, stream_max_retries: 0 } },
      approval_policy: "on-request",
      sandbox_mode: "workspace-write",
    },
  });
  await server.init();
  cleanups.push(() => rmSync(home, { recursive: true, force: true }));
  cleanups.push(() => mock.close());
  cleanups.push(() => server.shutdown());
  let nextId = 0;
  const connect = async (): Promise<Client> => {
    const input = new PassThrough();
    const output = new PassThrough();
    const log = new MessageLog(output);
    server.connect(input, output);
    cleanups.push(() => expect(turnViolations(log.messages)).toEqual([]));
    const send = (message: object) => input.write(JSON.stringify(message) + "\n");
    const request = (method: string, params: object) => {
      const id = `r${++nextId}`;
      send({ id, method, params });
      return log.response(id);
    };
    await request("initialize", { clientInfo: { name: "c", version: "1" } });
    return { log, request, send };
  };
  const clients: Client[] = [];
  for (let i = 0; i < count; i++) clients.push(await connect());
  return { server, clients, connect };
}

const isApproval = (m: any) => m.method === "item/commandExecution/requestApproval";

describe("approval requests across connections", () => {
  it("go to every subscribed connection; the first answer wins and each sees it resolved under its own id", async () => {
    const { server, clients } = await serverWithClients(2);
    const [a, b] = clients as [Client, Client];
    const threadId = (await a.request("thread/start", {})).result.thread.id;
    await b.request("thread/resume", { threadId });
    await a.request("turn/start", { threadId, input: [{ type: "text", text: "Go." }] });
    const [toA, toB] = await Promise.all([a.log.waitFor(isApproval), b.log.waitFor(isApproval)]);
    expect(toA.id).toBe(toB.id);
    b.send({ id: toB.id, result: { decision: "accept" } });
    a.send({ id: toA.id, result: { decision: "decline" } });
    for (const [client, sent] of [[a, toA], [b, toB]] as const) {
      const completed = await client.log.waitFor((m) => m.method === "turn/completed");
      expect(completed.params.turn.status).toBe("completed");
      expect(client.log.messages.filter((m) => m.method === "serverRequest/resolved")).toEqual([
        expect.objectContaining({ params: { threadId, requestId: sent.id } }),
      ]);
    }
    // Every request the server made is answered and forgotten.
    expect(server.serverRequests.size).toBe(0);
    const item = a.log.messages.find((m) => m.method === "item/completed" && m.params.item.type === "commandExecution");
    expect(item.params.item).toMatchObject({ status: "completed", aggregatedOutput: "approved\n" });
  });

  it("are replayed to a connection that resumes the thread while they wait", async () => {
    const { server, clients, connect } = await serverWithClients(1);
    const [a] = clients as [Client];
    const threadId = (await a.request("thread/start", {})).result.thread.id;
    await a.request("turn/start", { threadId, input: [{ type: "text", text: "Go." }] });
    const original = await a.log.waitFor(isApproval);
    const late = await connect();
    await late.request("thread/resume", { threadId });
    const replayed = await late.log.waitFor(isApproval);
    // The late connection's own numbering: its first server request.
    expect(replayed.id).toBe(0);
    expect(replayed.params).toEqual(original.params);
    late.send({ id: replayed.id, result: { decision: "accept" } });
    const completed = await a.log.waitFor((m) => m.method === "turn/completed");
    expect(completed.params.turn.status).toBe("completed");
    expect(server.serverRequests.size).toBe(0);
  });
});
