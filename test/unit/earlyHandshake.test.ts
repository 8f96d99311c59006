import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { EarlyHandshake } from "../../src/cli/earlyHandshake.js";
import { fileIdentity, recordStartupStamp, stampedConfigFile } from "../../src/cli/startupStamp.js";
import { InitializeParams } from "../../src/protocol/initialize.js";
import { readPlainInitialize } from "../../src/protocol/plainInitialize.js";
import { describeServer } from "../../src/server/serverDescription.js";
import { parseEnvelope } from "../../src/transport/envelope.js";

const INIT = { id: 1, method: "initialize", params: { clientInfo: { name: "editor", version: "1.2" } } };

/** A small deterministic generator, so a failing case can be replayed. */
function random(seed: number): () => number {
  // mulberry32
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

const VALUES: unknown[] = [undefined, null, true, false, 0, 1.5, 2 ** 60, "", "x", "2.0", [], ["a"], [1], {}, { a: 1 }];

/** An initialize message with some fields replaced by odd values. */
function variant(next: () => number): string {
  const pick = () => VALUES[Math.floor(next() * VALUES.length)];
  const maybe = (value: unknown) => (next() < 0.25 ? pick() : value);
  const capabilities =
    next() < 0.3
      ? maybe(undefined)
      : {
          experimentalApi: maybe(true),
          optOutNotificationMethods: maybe(["item/agentMessage/delta"]),
          extensions: maybe({ editor: { on: true } }),
          requestAttestation: maybe(undefined),
          unknownCapability: maybe(undefined),
        };
  const message: Record<string, unknown> = {
    jsonrpc: maybe(undefined),
    id: maybe(7),
    method: next() < 0.1 ? pick() : "initialize",
    params: next() < 0.1 ? pick() : { clientInfo: next() < 0.1 ? pick() : { name: maybe("editor"), version: maybe("1.0"), title: maybe(undefined) }, capabilities, extra: maybe(undefined) },
  };
  if (next() < 0.05) message.result = pick();
  return JSON.stringify(message);
}

describe("readPlainInitialize", () => {
  it("accepts only what the envelope and the InitializeParams schema accept, with the same client info", () => {
    const next = random(42);
    let accepted = 0;
    for (let i = 0; i < 5_000; i++) {
      const text = variant(next);
      const plain = readPlainInitialize(text);
      if (!plain) continue;
      accepted++;
      const envelope = parseEnvelope(text);
      if (envelope.kind !== "message") throw new Error(`the envelope refuses ${text}`);
      const message = envelope.message as unknown as { id?: unknown; method: string; params?: unknown };
      expect(message.method).toBe("initialize");
      expect(message.id).toBe(plain.id);
      const parsed = InitializeParams.safeParse(message.params ?? {});
      expect(parsed.success, text).toBe(true);
      expect(parsed.data!.clientInfo.name).toBe(plain.params.clientInfo.name);
      expect(parsed.data!.clientInfo.version).toBe(plain.params.clientInfo.version);
    }
    // The generator must reach both sides of the check, or the test proves nothing.
    expect(accepted).toBeGreaterThan(200);
    expect(accepted).toBeLessThan(4_000);
  });

  it("accepts the initialize requests real clients send", () => {
    const tui = { id: 0, method: "initialize", params: { clientInfo: { name: "codex-tui", title: null, version: "0.169.0" }, capabilities: { experimentalApi: true, optOutNotificationMethods: null } } };
    const sdk = { jsonrpc: "2.0", id: "init", method: "initialize", params: { clientInfo: { name: "sdk", title: "SDK", version: "1" }, capabilities: null } };
    for (const message of [INIT, tui, sdk]) expect(readPlainInitialize(JSON.stringify(message))?.id).toBe(message.id);
  });

  it("leaves anything else to the server", () => {
    for (const text of ["", "[]", "{", '{"id":1,"method":"thread/start"}', '{"id":1.5,"method":"initialize","params":{"clientInfo":{"name":"a","version":"1"}}}', '{"id":1,"method":"initialize","params":{"clientInfo":{"name":"a","version":"1"},"__proto__":{}}}']) {
      expect(readPlainInitialize(text)).toBeNull();
    }
  });
});

describe("EarlyHandshake", () => {
  const homes: string[] = [];
  afterEach(() => {
    for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
  });

  async function stampedHome(argv: string[], options: { includeJsonrpc?: boolean; maxMessageBytes?: number } = {}): Promise<string> {
    const home = mkdtempSync(path.join(os.tmpdir(), "aas-early-"));
    homes.push(home);
    const config = fileIdentity(stampedConfigFile(home));
    await recordStartupStamp(home, argv, { includeJsonrpc: options.includeJsonrpc ?? false, maxMessageBytes: options.maxMessageBytes ?? 1 << 20, config });
    return home;
  }

  function start(home: string, argv: string[]) {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    let output = "";
    stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const early = EarlyHandshake.start(argv, { AGENT_APP_SERVER_HOME: home }, () => ({ stdin, stdout }));
    return { early, stdin, output: () => output };
  }

  /** Everything the handed-off input yields until it ends. */
  async function readAll(input: NodeJS.ReadableStream): Promise<string> {
    let text = "";
    for await (const chunk of input) text += chunk.toString();
    return text;
  }

  const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

  it("answers a stamped start's initialize as the server would, and hands over the input after it", async () => {
    const home = await stampedHome(["app-server"]);
    const { early, stdin, output } = start(home, ["app-server"]);
    const sent = `${JSON.stringify(INIT)}\n{"method":"initialized"}\n`;
    stdin.write(sent);
    await nextTurn();
    const expected = `${JSON.stringify({ id: 1, result: describeServer(INIT.params.clientInfo, home) })}\n`;
    expect(output()).toBe(expected);
    const { input, answered } = early!.handOff();
    expect(answered).toEqual({ id: 1, params: INIT.params, line: expected });
    stdin.end('{"id":2,"method":"thread/list"}\n');
    expect(await readAll(input)).toBe('{"method":"initialized"}\n{"id":2,"method":"thread/list"}\n');
  });

  it("adds jsonrpc when the stamped command line asked for it", async () => {
    const home = await stampedHome(["app-server", "--jsonrpc"], { includeJsonrpc: true });
    const { early, stdin, output } = start(home, ["app-server", "--jsonrpc"]);
    stdin.write(`${JSON.stringify(INIT)}\n`);
    await nextTurn();
    expect(JSON.parse(output()).jsonrpc).toBe("2.0");
    expect(early!.handOff().answered?.line).toBe(output());
  });

  it("does not start without a stamp of this very start", async () => {
    const home = await stampedHome(["app-server"]);
    expect(start(home, ["app-server", "--strict-config"]).early).toBeNull();
    writeFileSync(stampedConfigFile(home), 'model = "changed"\n');
    expect(start(home, ["app-server"]).early).toBeNull();
    const fresh = mkdtempSync(path.join(os.tmpdir(), "aas-early-"));
    homes.push(fresh);
    expect(start(fresh, ["app-server"]).early).toBeNull();
  });

  it("keeps the stamp owner-only and without the arguments, which may hold tokens", async () => {
    const home = await stampedHome(["app-server", "-c", 'model_providers.acme.experimental_bearer_token="sk-SECRET123"']);
    const file = path.join(home, "startup_stamp.json");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, "utf8")).not.toContain("SECRET123");
    const { early } = start(home, ["app-server", "-c", 'model_providers.acme.experimental_bearer_token="sk-SECRET123"']);
    expect(early).not.toBeNull();
    early!.handOff();
  });

  it("ignores a stamp that is not one: not an object, not a regular file, or from another build", async () => {
    const home = await stampedHome(["app-server"]);
    const file = path.join(home, "startup_stamp.json");
    const stamp = JSON.parse(readFileSync(file, "utf8"));
    for (const text of ["null", "[]", "7", "{", JSON.stringify({ ...stamp, build: { dev: 1, ino: 2, size: 3, mtimeMs: 4, ctimeMs: 5 } })]) {
      writeFileSync(file, text);
      expect(start(home, ["app-server"]).early, text).toBeNull();
    }
    // A FIFO would block a plain read forever, at start and when the stamp is written anew.
    rmSync(file);
    execFileSync("mkfifo", [file]);
    expect(start(home, ["app-server"]).early).toBeNull();
    await recordStartupStamp(home, ["app-server"], { includeJsonrpc: false, maxMessageBytes: 1 << 20, config: null });
    expect(statSync(file).isFile()).toBe(true);
  });

  it("leaves a first line that is not a plain initialize, or too long, or unfinished, to the server", async () => {
    const cases = [
      '{"id":1,"method":"thread/start","params":{}}\n',
      '{"id":1,"method":"initialize","params":{"clientInfo":{"name":"bad\\nname","version":"1"}}}\n',
      `${JSON.stringify({ ...INIT, params: { clientInfo: { name: "x".repeat(300), version: "1" } } })}\n`,
      JSON.stringify(INIT),
    ];
    for (const sent of cases) {
      const home = await stampedHome(["app-server"], { maxMessageBytes: 200 });
      const { early, stdin, output } = start(home, ["app-server"]);
      stdin.end(sent);
      await nextTurn();
      await nextTurn();
      const { input, answered } = early!.handOff();
      expect(answered).toBeNull();
      expect(output()).toBe("");
      expect(await readAll(input)).toBe(sent);
    }
  });
});
