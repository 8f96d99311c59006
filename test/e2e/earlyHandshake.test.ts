import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ServerProcess } from "../support/serverProcess.js";

const ESM_CLI = path.resolve(import.meta.dirname, "../../dist/cli.js");
const CONVERSATION = [
  { id: 1, method: "initialize", params: { clientInfo: { name: "editor", title: null, version: "2.0" }, capabilities: { experimentalApi: true } } },
  { method: "initialized" },
  { id: 2, method: "thread/list", params: {} },
];

/** One whole session on `home`: the conversation sent at once, stdin closed, the server gone. */
async function session(home: string, options: { args?: string[]; cli?: string } = {}) {
  const server = ServerProcess.start({ home, ...options });
  for (const message of CONVERSATION) server.send(message);
  await server.waitFor((message) => message.id === 2);
  const exit = await server.closeStdin();
  await server.stop();
  // Notification times differ between two runs; nothing else may.
  const lines = server.stdoutLines.map((line) => line.replace(/"emittedAtMs":\d+/, '"emittedAtMs":0'));
  return { lines, stderr: server.stderr, exit };
}

describe("early handshake", () => {
  const homes: string[] = [];
  afterEach(() => {
    for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
  });
  function home(): string {
    const dir = mkdtempSync(path.join(os.tmpdir(), "aas-early-"));
    homes.push(dir);
    // An unknown key: its configWarning must follow the initialize response in both kinds of start.
    writeFileSync(path.join(dir, "config.toml"), 'model = "gpt-5.5"\nnot_a_key_of_ours = 1\n');
    return dir;
  }

  it("answers initialize before the server loads on a second start, with the same bytes and the same session after", async () => {
    const dir = home();
    const first = await session(dir);
    expect(first.stderr).toContain('"earlyHandshake":false');
    expect(existsSync(path.join(dir, "startup_stamp.json"))).toBe(true);
    const second = await session(dir);
    expect(second.stderr).toContain('"earlyHandshake":true');
    expect(second.stderr).not.toContain("differs from the server's");
    expect(second.lines).toEqual(first.lines);
    expect(second.lines.map((line) => JSON.parse(line).method ?? JSON.parse(line).id)).toEqual([1, "configWarning", 2]);
    // dist/cli.js, the same entry as an ES module, takes the same path.
    const esm = await session(dir, { cli: ESM_CLI });
    expect(esm.stderr).toContain('"earlyHandshake":true');
    expect(esm.lines).toEqual(first.lines);
  });

  it("gives odd first lines the same session as a start without a stamp, answered early or not", async () => {
    const init = (extra: object) => JSON.stringify({ id: 1, method: "initialize", params: { clientInfo: { name: "c", version: "1" } }, ...extra });
    const firstLines = [
      { line: `\uFEFF${init({})}`, early: true },
      { line: `  ${init({ id: "x", jsonrpc: "2.0" })}  \r`, early: true },
      { line: init({ params: { clientInfo: { name: "c", version: "1", title: null }, capabilities: { optOutNotificationMethods: ["configWarning"], experimentalApi: "yes" } } }), early: false },
      { line: init({ params: { clientInfo: { name: "c", version: "1" }, capabilities: { optOutNotificationMethods: ["configWarning"] } } }), early: true },
      { line: '{"id":1,"method":"initialize","params":{"clientInfo":{"name":"c","version":"1","name":"d\u00e9"}}}', early: false },
    ];
    for (const { line, early } of firstLines) {
      const dir = home();
      const rest = '\n{"method":"initialized"}\n{"id":2,"method":"thread/list","params":{}}\n';
      const run = async () => {
        const server = ServerProcess.start({ home: dir });
        server.sendRaw(line + rest);
        await server.waitFor((message) => message.id === 2);
        await server.closeStdin();
        await server.stop();
        return { lines: server.stdoutLines.map((text) => text.replace(/"emittedAtMs":\d+/, '"emittedAtMs":0')), early: server.stderr.includes('"earlyHandshake":true') };
      };
      const plain = await run();
      const stamped = await run();
      expect(stamped.early, line).toBe(early);
      expect(stamped.lines, line).toEqual(plain.lines);
    }
  });

  it("lets a client reuse the answered id at once, as after any answered request", async () => {
    const dir = home();
    await session(dir);
    const server = ServerProcess.start({ home: dir });
    // Sent as soon as the early answer is in, while the server still loads.
    const init = await server.request("initialize", { clientInfo: { name: "editor", version: "2.0" } }, 1);
    expect(init.result.codexHome).toBe(dir);
    server.send({ id: 1, method: "thread/list", params: {} });
    await server.waitFor((message) => message.id === 1 && message !== server.messages.find((first) => first.id === 1));
    const answers = server.messages.filter((message) => message.id === 1);
    expect(answers).toHaveLength(2);
    expect(answers[1]).toEqual({ id: 1, result: { data: [], readStates: {}, nextCursor: null, backwardsCursor: null } });
    expect(server.stderr).toContain('"earlyHandshake":true');
    await server.stop();
  });

  it("exits 0 on SIGTERM after an early answer, before the server has taken over", async () => {
    const dir = home();
    await session(dir);
    const server = ServerProcess.start({ home: dir });
    server.send(CONVERSATION[0]!);
    await server.waitFor((message) => message.id === 1);
    const exit = await server.signal("SIGTERM");
    expect(exit).toMatchObject({ code: 0, signal: null });
    await server.stop();
  });

  it("stamps no start that reads a model script: a script broken since gets no early answer", async () => {
    const dir = home();
    const script = path.join(dir, "script.json");
    writeFileSync(script, "[]");
    const args = ["app-server", "--script", script];
    expect((await session(dir, { args })).stderr).toContain('"earlyHandshake":false');
    expect(existsSync(path.join(dir, "startup_stamp.json"))).toBe(false);
    writeFileSync(script, "not json");
    const server = ServerProcess.start({ home: dir, args });
    server.send(CONVERSATION[0]!);
    const exit = await server.waitExit();
    expect(exit.code).toBe(1);
    expect(server.stdoutLines).toEqual([]);
    expect(server.stderr).toContain("is not JSON");
    await server.stop();
  });

  it("writes jsonrpc in the early response when the command line asks for it", async () => {
    const dir = home();
    const args = ["app-server", "--jsonrpc"];
    const first = await session(dir, { args });
    const second = await session(dir, { args });
    expect(second.stderr).toContain('"earlyHandshake":true');
    expect(JSON.parse(second.lines[0]!)).toMatchObject({ jsonrpc: "2.0", id: 1 });
    expect(second.lines).toEqual(first.lines);
  });

  it("answers nothing early once config.toml has changed: a broken config still stops the start with its message", async () => {
    const dir = home();
    await session(dir);
    writeFileSync(path.join(dir, "config.toml"), "model = 3\n");
    const server = ServerProcess.start({ home: dir });
    for (const message of CONVERSATION) server.send(message);
    const exit = await server.waitExit();
    expect(exit.code).toBe(1);
    expect(server.stdoutLines).toEqual([]);
    expect(server.stderr).toContain("Invalid config file");
    await server.stop();
    // The stamp still names the old config: a fixed config.toml starts normally, then is stamped anew.
    writeFileSync(path.join(dir, "config.toml"), 'model = "gpt-5.5"\n');
    expect((await session(dir)).stderr).toContain('"earlyHandshake":false');
    expect((await session(dir)).stderr).toContain('"earlyHandshake":true');
    expect(JSON.parse(readFileSync(path.join(dir, "startup_stamp.json"), "utf8")).format).toBe(2);
  });
});
