import { spawn } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { procStatusKb } from "../../bench/lib.mjs";
import { RawWebSocketClient, startWebSocketServer } from "../support/rawWebSocket.js";
import { ServerProcess, WAIT_MS } from "../support/serverProcess.js";

/**
 * Fair and bounded under load: a client that floods cannot make another client's requests fail
 * (admission is bounded per connection, under a server-wide ceiling a connection's `initialize`
 * passes); a message over the size limit is refused on either transport; large WebSocket messages
 * and large `fs/readFile`s share server-wide byte budgets. Peak memory is printed, not asserted.
 */

const OVERLOADED = { code: -32001, message: "Server overloaded; retry later." };
const MiB = 1024 * 1024;
const UNSANDBOXED = ["-c", `sandbox_mode="danger-full-access"`];

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** `promise`, or a rejection naming `what` once `ms` have passed. */
function within<T>(promise: Promise<T>, what: string, ms = WAIT_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** A WebSocket server (see {@link startWebSocketServer}) stopped after the test: it does not watch stdin, so SIGTERM. */
async function wsServer(args: string[]): Promise<{ url: string; server: ServerProcess }> {
  const started = await startWebSocketServer(args);
  cleanups.push(() => started.server.signal("SIGTERM"));
  return started;
}

/** A fresh temp directory, by its real path, removed after the test. */
function tempDir(prefix: string): string {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), prefix)));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * An flock(1) lock the test holds until `release`: a `command/exec` of `flock LOCK true` waits for
 * it however long that is, so the requests it answers stay admitted and unanswered until then.
 */
async function heldLock(): Promise<{ command: string[]; release: () => Promise<void> }> {
  const lock = path.join(tempDir("aas-load-lock-"), "lock");
  const holder = spawn("flock", [lock, "sh", "-c", "echo locked; exec cat"], { stdio: ["pipe", "pipe", "inherit"] });
  const exited = new Promise<void>((resolve) => holder.once("exit", () => resolve()));
  await within(
    new Promise<void>((resolve, reject) => {
      holder.stdout.once("data", () => resolve());
      holder.once("error", reject);
    }),
    "flock to take the lock",
  );
  const release = async () => {
    holder.stdin.end();
    await within(exited, "the lock's release");
  };
  cleanups.push(release);
  return { command: ["flock", lock, "true"], release };
}

/** Sends `count` requests that wait for `lock` without waiting for answers; resolves, once each is admitted or refused, with how many were refused. */
async function flood(client: RawWebSocketClient, count: number, lock: { command: string[] }): Promise<number> {
  for (let id = 1; id <= count; id++) client.post(id, "command/exec", { command: lock.command, disableTimeout: true });
  // Requests are dispatched in order and the admitted ones wait: once the last is answered, every one has been admitted or refused.
  await client.waitFor((m) => m.id === count && !("method" in m), `the answer to request ${count} of the flood`);
  const refused = client.messages.filter((m) => typeof m.id === "number" && m.error);
  for (const { error } of refused) expect(error).toEqual(OVERLOADED);
  return refused.length;
}

/** Resolves once `count` of the flood's requests have been served (their commands exited 0). */
function served(client: RawWebSocketClient, count: number): Promise<unknown> {
  const exited = () => client.messages.filter((m) => typeof m.id === "number" && m.result?.exitCode === 0).length;
  return client.waitFor(() => exited() === count, `${count} flooded commands served`);
}

/** Connects `count` clients at once; each must initialize, then answer `thread/list`. */
async function crowd(url: string, count: number): Promise<void> {
  const clients = await Promise.all(
    Array.from({ length: count }, async (_, n) => {
      const client = await RawWebSocketClient.connect(url, `client-${n}`);
      cleanups.push(() => client.close());
      const listed = await client.request("thread/list", {});
      expect(listed.error, `thread/list of client-${n}`).toBeUndefined();
      return client;
    }),
  );
  expect(clients.flatMap((client) => client.violations)).toEqual([]);
}

/** Prints the server's peak memory so far: measured, never asserted (machines differ). */
function reportPeak(server: ServerProcess, what: string): void {
  const peakKb = procStatusKb(server.child.pid!, "VmHWM");
  if (peakKb !== null) console.log(`[load] ${what}: server peak RSS ${(peakKb / 1024).toFixed(0)} MiB`);
}

/** A raw WebSocket, open. */
async function openSocket(url: string): Promise<WebSocket> {
  const socket = new WebSocket(url);
  cleanups.push(() => socket.terminate());
  await within(new Promise((resolve, reject) => socket.once("open", resolve).once("error", reject)), "the WebSocket to open");
  return socket;
}

/** The response to request `id` on a raw WebSocket. */
function answerTo(socket: WebSocket, id: unknown): Promise<any> {
  return within(
    new Promise((resolve) => {
      const onMessage = (data: WebSocket.RawData) => {
        const message = JSON.parse(String(data));
        if (message.id !== id || "method" in message) return;
        socket.off("message", onMessage);
        resolve(message);
      };
      socket.on("message", onMessage);
    }),
    `the response to ${JSON.stringify(id)}`,
  );
}

describe("fair under load", () => {
  it("serves 199 WebSocket clients, initialize and a request each, while a 200th floods and gets -32001", async () => {
    const lock = await heldLock();
    const { url, server } = await wsServer(UNSANDBOXED);
    const flooder = await RawWebSocketClient.connect(url, "flooder");
    cleanups.push(() => flooder.close());
    // 128 admitted (the per-connection bound), each waiting for the lock; the rest refused.
    expect(await flood(flooder, 1000, lock)).toBe(1000 - 128);
    await crowd(url, 199);
    // The flooder is served too once its work can finish.
    await lock.release();
    await served(flooder, 128);
    expect((await flooder.request("thread/list", {})).result).toBeDefined();
    expect(flooder.violations).toEqual([]);
    reportPeak(server, "200 WebSocket clients, 1,000 flooded requests");
  });

  it("keeps a server-wide ceiling that a new client's initialize passes; its work waits for room", async () => {
    const lock = await heldLock();
    const limits = ["-c", "max_pending_requests_per_connection=8", "-c", "max_pending_requests_total=12"];
    const { url } = await wsServer([...UNSANDBOXED, ...limits]);
    const [a, b] = await Promise.all([RawWebSocketClient.connect(url, "a"), RawWebSocketClient.connect(url, "b")]);
    cleanups.push(() => a.close(), () => b.close());
    expect(await flood(a, 10, lock)).toBe(2);
    // b is under its own bound, but the server is at its ceiling after 4 more.
    expect(await flood(b, 10, lock)).toBe(6);
    const late = await RawWebSocketClient.connect(url, "late");
    cleanups.push(() => late.close());
    expect((await late.request("thread/list", {})).error).toEqual(OVERLOADED);
    await lock.release();
    await Promise.all([served(a, 8), served(b, 4)]);
    expect((await late.request("thread/list", {})).result.data).toEqual([]);
  });
});

describe("bounded under load", () => {
  it("refuses a message over max_message_bytes on stdio and WebSocket with a clear error, and keeps serving", async () => {
    const tooBig = { id: 1, method: "initialize", params: { clientInfo: { name: "big", version: "1" }, pad: "y".repeat(10_000) } };
    const stdio = ServerProcess.start({ args: ["app-server", "-c", "max_message_bytes=4096"] });
    stdio.send(tooBig);
    expect((await stdio.waitFor((m) => m.id === null, "the oversized line refused")).error).toEqual({
      code: -32600,
      message: expect.stringMatching(/^Invalid request: message of \d+ bytes exceeds the limit of 4096 bytes$/),
    });
    expect((await stdio.initialize()).userAgent).toBeDefined();

    const { url } = await wsServer(["-c", "max_message_bytes=4096"]);
    const healthy = await RawWebSocketClient.connect(url, "healthy");
    cleanups.push(() => healthy.close());
    const sender = await openSocket(url);
    const closed = new Promise<number>((resolve) => sender.once("close", (code) => resolve(code)));
    sender.send(JSON.stringify(tooBig));
    // 1009: "message too big"; ws refuses it by the length in the frame header, before buffering it.
    expect(await within(closed, "the oversized message's connection to close")).toBe(1009);
    expect((await healthy.request("thread/list", {})).result.data).toEqual([]);
  });

  it("serves WebSocket clients sending large messages at once past the inbound budget: reading pauses, nothing is refused", async () => {
    const { url, server } = await wsServer(["-c", `websocket_max_inbound_bytes=${8 * MiB}`]);
    const sockets = await Promise.all(Array.from({ length: 8 }, () => openSocket(url)));
    const title = "x".repeat(6 * MiB);
    const answers = sockets.map((socket, n) => {
      const answer = answerTo(socket, 1);
      socket.send(JSON.stringify({ id: 1, method: "initialize", params: { clientInfo: { name: `big-${n}`, title, version: "1" } } }));
      return answer;
    });
    for (const [n, answer] of (await Promise.all(answers)).entries()) expect(answer.result.userAgent).toContain(`big-${n}/`);
    const listed = answerTo(sockets[0]!, 2);
    sockets[0]!.send(JSON.stringify({ id: 2, method: "thread/list", params: {} }));
    expect((await listed).result.data).toEqual([]);
    reportPeak(server, "8 WebSocket messages of 6 MiB at once, 8 MiB inbound budget");
  });

  it("refuses fs/readFile past fs_max_concurrent_read_bytes with -32001, serves the rest, and keeps serving", async () => {
    const workspace = tempDir("aas-load-ws-");
    const content = Buffer.alloc(8 * MiB, "load");
    const file = path.join(workspace, "big.bin");
    writeFileSync(file, content);
    const huge = path.join(workspace, "huge.bin");
    writeFileSync(huge, Buffer.alloc(21 * MiB));
    const server = ServerProcess.start({ cwd: workspace, args: ["app-server", "-c", `fs_max_concurrent_read_bytes=${20 * MiB}`] });
    await server.initialize();
    const ids = Array.from({ length: 12 }, (_, n) => `read-${n}`);
    // In one write, so the server reads them all at once and they overlap: two files fit the budget.
    server.sendRaw(ids.map((id) => JSON.stringify({ id, method: "fs/readFile", params: { path: file } }) + "\n").join(""));
    const answers = await Promise.all(ids.map((id) => server.waitFor((m) => m.id === id && !("method" in m), `the answer to ${id}`)));
    const refused = answers.filter((answer) => answer.error);
    expect(refused.map((answer) => answer.error)).toEqual(refused.map(() => OVERLOADED));
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.length).toBeLessThan(ids.length);
    for (const answer of answers.filter((answer) => answer.result)) expect(Buffer.from(answer.result.dataBase64, "base64").equals(content)).toBe(true);
    // Nothing stays reserved: a read now is served; a file the whole budget could not hold is refused as too large.
    expect((await server.request("fs/readFile", { path: file })).result.dataBase64.length).toBe(content.toString("base64").length);
    expect((await server.request("fs/readFile", { path: huge })).error).toEqual({
      code: -32600,
      message: `fs/readFile: ${huge} is 21 MiB; files larger than 20 MiB are not read`,
      data: { path: huge, size: 21 * MiB, limit: 20 * MiB },
    });
    reportPeak(server, `12 fs/readFile of 8 MiB at once (${ids.length - refused.length} served), 20 MiB read budget`);
  });
});
