import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { AppServerClient } from "../../src/client/index.js";
import { startMockModel, type MockModel, type MockResponseInput } from "../../src/testing/index.js";
import { processesMatching } from "../support/processes.js";
import { RawWebSocketClient, startWebSocketServer } from "../support/rawWebSocket.js";
import { bwrapAvailable } from "../support/sandbox.js";
import { ServerProcess } from "../support/serverProcess.js";

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Starts a WebSocket server on a free port and returns its URL (read from its log). */
async function wsServer(args: string[] = [], responses: MockResponseInput[] = []): Promise<{ url: string; server: ServerProcess; mock: MockModel }> {
  const mock = await startMockModel({ responses });
  cleanups.push(() => mock.close());
  const { url, server } = await startWebSocketServer(["-c", `model_provider="mock"`, "-c", `model_providers.mock={base_url="${mock.url}",request_max_retries=0,stream_max_retries=0}`, ...args]);
  cleanups.push(() => server.signal("SIGTERM"));
  return { url, server, mock };
}

async function client(url: string, token?: string): Promise<AppServerClient> {
  const connected = await AppServerClient.connect(url, { token });
  cleanups.push(() => connected.close());
  return connected;
}

/** Opens a raw WebSocket and resolves with how the upgrade went. */
function rawUpgrade(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve) => {
    const socket = new WebSocket(url, { headers });
    socket.on("open", () => {
      socket.close();
      resolve(101);
    });
    socket.on("unexpected-response", (_request, response) => resolve(response.statusCode ?? 0));
    socket.on("error", () => undefined);
  });
}

describe("WebSocket listener", () => {
  it("serves readyz and healthz, and lets two clients share a thread", async () => {
    const { url } = await wsServer([], [{ items: [{ type: "message", deltas: ["shared ", "answer"] }] }]);
    for (const route of ["readyz", "healthz"]) {
      expect((await fetch(`${url.replace("ws:", "http:")}/${route}`)).status).toBe(200);
    }
    const a = await client(url);
    const b = await client(url);
    const { thread } = await a.startThread({ cwd: os.tmpdir() });
    await b.request("thread/resume", { threadId: thread.id });
    const seenByB: string[] = [];
    b.on("item/agentMessage/delta", (params) => seenByB.push(params.delta));
    const completedForB = new Promise((resolve) => b.on("turn/completed", resolve));
    expect(await AppServerClient.collectText(a.runTurn(thread.id, "Hi both"))).toBe("shared answer");
    await completedForB;
    expect(seenByB).toEqual(["shared ", "answer"]);
  });

  it("sends an answer written in many chunks as one frame: a 3 MB file read", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "aas-ws-read-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const file = path.join(dir, "big.bin");
    const data = Buffer.from(Array.from({ length: 3_000_000 }, (_, i) => (i * 31) % 256));
    writeFileSync(file, data);
    const { url } = await wsServer(["-c", `sandbox_workspace_write.writable_roots=[${JSON.stringify(dir)}]`]);
    const a = await client(url);
    const { dataBase64 } = await a.request("fs/readFile", { path: file });
    expect(dataBase64 === data.toString("base64")).toBe(true);
  });

  it("requires the capability token when auth is on, compared by hash", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "aas-token-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(path.join(dir, "token"), "s3cret-token\n");
    const { url } = await wsServer(["--ws-auth", "capability-token", "--ws-token-file", path.join(dir, "token")]);
    expect(await rawUpgrade(url, {})).toBe(401);
    expect(await rawUpgrade(url, { authorization: "Bearer wrong" })).toBe(401);
    expect(await rawUpgrade(url, { authorization: "Bearer s3cret-token" })).toBe(101);
    const authed = await client(url, "s3cret-token");
    expect((await authed.startThread({})).thread.id).toMatch(/^[0-9a-f-]{36}$/);
    const { createHash } = await import("node:crypto");
    const hashed = await wsServer(["--ws-auth", "capability-token", "--ws-token-sha256", createHash("sha256").update("other-token").digest("hex")]);
    expect(await rawUpgrade(hashed.url, { authorization: "Bearer s3cret-token" })).toBe(401);
    expect(await rawUpgrade(hashed.url, { authorization: "Bearer other-token" })).toBe(101);
  });

  it("refuses browser origins unless allowed", async () => {
    const { url } = await wsServer(["--ws-allow-origin", "http://localhost:3000"]);
    expect(await rawUpgrade(url, { origin: "https://evil.example" })).toBe(403);
    expect(await rawUpgrade(url, { origin: "http://localhost:3000" })).toBe(101);
    expect((await fetch(`${url.replace("ws:", "http:")}/readyz`, { headers: { origin: "https://evil.example" } })).status).toBe(403);
  });

  it("closes a connection that sends an oversized message, and only that one", async () => {
    const { url } = await wsServer(["--max-line-bytes", "4096"]);
    const healthy = await client(url);
    const socket = new WebSocket(url);
    await new Promise((resolve) => socket.on("open", resolve));
    const closed = new Promise<number>((resolve) => socket.on("close", (code) => resolve(code)));
    socket.send(JSON.stringify({ id: 1, method: "thread/list", params: { searchTerm: "x".repeat(10_000) } }));
    expect(await closed).toBe(1009);
    expect((await healthy.request("thread/list", {})).data).toEqual([]);
  });

  it("disconnects a client that stops reading while another keeps streaming", async () => {
    const { url, server } = await wsServer(["-c", "websocket_max_buffered_bytes=65536"], [
      { items: [{ type: "message", repeat: 300, delta: "x".repeat(50_000) }] },
    ]);
    const fast = await client(url);
    const { thread } = await fast.startThread({});
    const slow = new WebSocket(url);
    cleanups.push(() => slow.terminate());
    const answered = new Set<number>();
    const waiters: Array<() => void> = [];
    slow.on("message", (data) => {
      const message = JSON.parse(String(data));
      if (message.id !== undefined && !message.method) answered.add(message.id);
      for (const wake of waiters.splice(0)) wake();
    });
    const answer = async (id: number) => {
      while (!answered.has(id)) await new Promise<void>((resolve) => waiters.push(resolve));
    };
    await new Promise((resolve) => slow.on("open", resolve));
    slow.send(JSON.stringify({ id: 1, method: "initialize", params: { clientInfo: { name: "slow", version: "1" } } }));
    await answer(1);
    slow.send(JSON.stringify({ id: 2, method: "thread/resume", params: { threadId: thread.id } }));
    await answer(2);
    // Stop reading: the slow client's TCP socket is paused, so the server's queue for it grows.
    (slow as unknown as { _socket: { pause(): void } })._socket.pause();
    const text = await AppServerClient.collectText(fast.runTurn(thread.id, "Stream a lot."));
    expect(text.length).toBe(300 * 50_000);
    await server.waitForStderr("disconnected a client that stopped reading");
    expect(server.stderr.split("disconnected a client that stopped reading").length - 1).toBe(1);
  });

  it("keeps an audit log per connection, lists it on /sessions, and never writes secrets", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "aas-audit-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const secret = "sk-test-0123456789abcdefghij";
    const mock = await startMockModel({ responses: [{ items: [{ type: "message", text: `echo ${secret}` }] }] });
    cleanups.push(() => mock.close());
    const server = ServerProcess.start({
      args: ["app-server", "--listen", "ws://127.0.0.1:0", "--session-log", dir, "-c", `model_provider="mock"`, "-c", `model_providers.mock={base_url="${mock.url}",env_key="MOCK_API_KEY"}`],
      env: { MOCK_API_KEY: secret },
      protocol: false,
    });
    cleanups.push(() => server.signal("SIGTERM"));
    await server.waitForStderr("listening on ws://");
    const url = /listening on (ws:\/\/[0-9.]+:\d+)/.exec(server.stderr)![1]!;
    const auditClient = await client(url);
    const { thread } = await auditClient.startThread({ config: { "model_providers.other.api_key": secret } });
    await AppServerClient.collectText(auditClient.runTurn(thread.id, `my token is ${secret}`));
    const listing = (await (await fetch(`${url.replace("ws:", "http:")}/sessions`)).json()) as { sessions: any[] };
    expect(listing.sessions).toHaveLength(1);
    const session = listing.sessions[0];
    expect(session.messageCount).toBeGreaterThan(10);
    const { readFileSync: read } = await import("node:fs");
    const lines = read(session.file, "utf8").trim().split("\n").map((line) => JSON.parse(line));
    // The listing counts the lines written when it answered; later messages may have been written since.
    expect(lines.length).toBeGreaterThanOrEqual(session.messageCount);
    expect(lines[0]).toMatchObject({ dir: "in", connection: session.id, msg: { method: "initialize" } });
    expect(lines.some((line) => line.dir === "out" && line.msg.method === "turn/completed")).toBe(true);
    expect(typeof lines[0].ts).toBe("string");
    const text = read(session.file, "utf8");
    expect(text).not.toContain(secret);
    expect(text).toContain("[REDACTED]");
    expect(server.stderr).not.toContain(secret);
  });
  it("takes an answer to an approval only from a connection it was sent to: another client's answer under the same id is ignored", async () => {
    const workspace = mkdtempSync(path.join(os.tmpdir(), "aas-ws-approval-"));
    cleanups.push(() => rmSync(workspace, { recursive: true, force: true }));
    const turn = (file: string): MockResponseInput[] => [
      { items: [{ type: "exec", cmd: `touch ${file}`, callId: `call_${file}` }] },
      { items: [{ type: "message", text: "Done." }] },
    ];
    const { url, server } = await wsServer(["-c", `approval_policy="untrusted"`, "-c", `sandbox_mode="danger-full-access"`], [...turn("declined.txt"), ...turn("accepted.txt")]);
    const a = await RawWebSocketClient.connect(url, "a");
    const b = await RawWebSocketClient.connect(url, "b");
    cleanups.push(() => [a, b].forEach((client) => client.close()));
    const threadId = (await a.request("thread/start", { cwd: workspace })).result.thread.id;

    for (const [file, decision] of [["declined.txt", "decline"], ["accepted.txt", "accept"]] as const) {
      const turnId = (await a.request("turn/start", { threadId, input: [{ type: "text", text: `touch ${file}` }] })).result.turn.id;
      const approval = await a.waitFor((m) => m.method === "item/commandExecution/requestApproval" && m.params.turnId === turnId, "the approval request");
      // B, never subscribed to the thread, answers A's request id (and its neighbours) first.
      for (const id of [approval.id - 1, approval.id, approval.id + 1]) b.send({ id, result: { decision: "accept" } });
      expect((await b.request("thread/list", {})).error).toBeUndefined();
      const stillWaiting = await a.request("thread/read", { threadId });
      expect(stillWaiting.result.thread.status).toEqual({ type: "active", activeFlags: ["waitingOnApproval"] });
      expect(existsSync(path.join(workspace, file))).toBe(false);
      expect(a.messages.filter((m) => m.method === "serverRequest/resolved" && m.params.requestId === approval.id)).toEqual([]);
      await server.waitForStderr(`was sent no request with id ${approval.id} that still waits for an answer`);

      a.send({ id: approval.id, result: { decision } });
      const completed = await a.waitFor((m) => m.method === "turn/completed" && m.params.turn.id === turnId, "turn/completed");
      expect(completed.params.turn.status).toBe("completed");
      const item = a.messages.find((m) => m.method === "item/completed" && m.params.item.id === `call_${file}`).params.item;
      expect(item.status).toBe(decision === "accept" ? "completed" : "declined");
      expect(existsSync(path.join(workspace, file))).toBe(decision === "accept");
      expect(a.messages.filter((m) => m.method === "serverRequest/resolved" && m.params.requestId === approval.id)).toHaveLength(1);
    }
    expect(b.messages.filter((m) => m.method !== undefined && m.id !== undefined)).toEqual([]);
    const ignored = server.stderr.split("\n").filter((line) => line.includes("ignored a response"));
    expect(ignored).toHaveLength(6);
    for (const line of ignored) expect(JSON.parse(line)).toMatchObject({ level: 40 });
    expect([...a.violations, ...b.violations]).toEqual([]);
  });
});

describe("the loopback rule: without auth only loopback addresses are bound", () => {
  // No server outlives its test, wrapped in bwrap or not (one under bwrap once kept listening).
  afterAll(async () => {
    const deadline = Date.now() + 5_000;
    while (processesMatching("--listen ws://loopback.test").length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(processesMatching("--listen ws://loopback.test")).toEqual([]);
  });

  /** Starts `--listen URL` without auth, under `wrapper`; resolves with the exit (refused) or the URL it listens on. */
  async function listen(target: string, wrapper: string[] = []): Promise<{ code: number | null; stderr: string } | { url: string }> {
    const server = ServerProcess.start({ args: ["app-server", "--listen", target], protocol: false, wrapper });
    cleanups.push(() => server.stop());
    // Whichever comes first; the other wait is dropped (its timeout must not surface later as a failure).
    const exited = server.waitExit().then((exit) => ({ code: exit.code }));
    const listening = server.waitForStderr("listening on ws://").then(() => null);
    exited.catch(() => undefined);
    listening.catch(() => undefined);
    const outcome = await Promise.race([exited, listening]);
    if (outcome) return { code: outcome.code, stderr: server.stderr };
    const url = /listening on (ws:\/\/\S+:\d+)/.exec(server.stderr)![1]!;
    cleanups.push(() => server.signal("SIGTERM"));
    return { url };
  }

  async function expectServes(url: string): Promise<void> {
    const connected = await RawWebSocketClient.connect(url, "loopback");
    cleanups.push(() => connected.close());
    expect((await connected.request("thread/list", {})).result.data).toEqual([]);
  }

  it("refuses 0.0.0.0 (exit code 2, saying what to do) and serves localhost on the loopback address it resolved to", async () => {
    const refused = await listen("ws://0.0.0.0:0");
    expect(refused).toMatchObject({ code: 2 });
    expect((refused as { stderr: string }).stderr).toContain(
      "agent-app-server: refusing to start a non-loopback WebSocket listener on 0.0.0.0 without auth: other machines could connect and run commands. " +
        "Listen on 127.0.0.1, [::1] or localhost, or require a token with --ws-auth capability-token --ws-token-file PATH.",
    );
    const local = await listen("ws://localhost:0");
    expect(local).toMatchObject({ url: expect.stringMatching(/^ws:\/\/(127\.\d+\.\d+\.\d+|\[::1\]):\d+$/) });
    await expectServes((local as { url: string }).url);
  });

  // The server runs in a mount namespace of its own whose /etc/hosts names these hosts.
  it.skipIf(!bwrapAvailable)("looks at what a name resolves to, not at the name: 127.evil.test → 0.0.0.0 is refused", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "aas-hosts-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const hosts = path.join(dir, "hosts");
    writeFileSync(hosts, ["0.0.0.0 127.evil.test", "127.0.0.1 127.mixed.test", "0.0.0.0 127.mixed.test", "127.0.0.1 loopback.test", ""].join("\n"));
    // --die-with-parent: the server must not outlive the bwrap the test stops.
    const wrapper = ["bwrap", "--dev-bind", "/", "/", "--ro-bind", hosts, "/etc/hosts", "--die-with-parent", "--"];
    for (const [name, addresses] of [["127.evil.test", "0.0.0.0"], ["127.mixed.test", "0.0.0.0"]]) {
      const refused = await listen(`ws://${name}:0`, wrapper);
      expect(refused).toMatchObject({ code: 2 });
      expect((refused as { stderr: string }).stderr).toContain(`refusing to start a non-loopback WebSocket listener on ${name} (${addresses}) without auth`);
    }
    const allowed = await listen("ws://loopback.test:0", wrapper);
    expect(allowed).toMatchObject({ url: expect.stringMatching(/^ws:\/\/127\.0\.0\.1:\d+$/) });
    await expectServes((allowed as { url: string }).url);
  });
});
