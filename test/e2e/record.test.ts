import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { AppServerClient } from "../../src/client/index.js";
import { startMockModel, type MockResponseInput } from "../../src/testing/index.js";
import { CLI_PATH, ServerProcess } from "../support/serverProcess.js";
import { mcpArgs, mcpServerScript, stdioTable } from "../support/mcpCalcServer.js";
import { mocks, providerArgs, servers, tempDir } from "../support/turnHarness.js";

const KEY = "sk-proj-RecordTestKey0123456789abcdefXYZ";

/** A session with streaming, an approved and a declined command, a patch, a second turn and an interrupt. */
const RESPONSES: MockResponseInput[] = [
        { items: [{ type: "message", deltas: ["I'll ", "create it."] }, { type: "exec", cmd: "cat .env", callId: "call_read" }, { type: "exec", cmd: "touch approved.txt && echo hi", callId: "call_ok", sandbox_permissions: "require_escalated", justification: "Write" }] },
        { items: [{ type: "message", deltas: ["It printed ", "hi. Your key is ", KEY, " and split: ", KEY.slice(0, 14), KEY.slice(14)] }] },
        { items: [{ type: "exec", cmd: "touch declined.txt", callId: "call_no", sandbox_permissions: "require_escalated", justification: "Write" }] },
        { items: [{ type: "apply_patch", callId: "call_patch", patch: "*** Begin Patch\n*** Update File: notes.md\n@@\n # Notes\n-old line\n+new line\n*** End Patch\n" }] },
        { items: [{ type: "message", text: "Declined, so I patched the notes." }] },
        { items: [{ type: "message", deltas: ["Thinking ", "about it"] }], hang: true },
];

/** Plays the session as a client would, against a server already started; resolves with its thread's id. */
async function driveSession(server: ServerProcess, workspace: string): Promise<string> {
  const decisions = ["accept", "decline"];
  server.onRequest("item/commandExecution/requestApproval", () => ({ decision: decisions.shift() }));
  await server.initialize();
  const threadId = (await server.request("thread/start", { cwd: workspace })).result.thread.id;
  const turn = async (text: string) => {
    const turnId = (await server.request("turn/start", { threadId, input: [{ type: "text", text }] })).result.turn.id;
    return { turnId, completed: server.waitFor((m) => m.method === "turn/completed" && m.params.turn.id === turnId, "turn/completed", 20_000) };
  };
  await (await turn("Create approved.txt and say hi.")).completed;
  await (await turn("Now touch declined.txt, else patch the notes.")).completed;
  const third = await turn("Think about it.");
  await server.waitFor((m) => m.method === "item/agentMessage/delta" && m.params.delta === "about it", "the last delta");
  await server.request("turn/interrupt", { threadId, turnId: third.turnId });
  expect((await third.completed).params.turn.status).toBe("interrupted");
  return threadId;
}

/** A workspace with the files the session reads and patches. */
function sessionWorkspace(): string {
  const workspace = tempDir("aas-record-ws-");
  writeFileSync(path.join(workspace, "notes.md"), "# Notes\nold line\n");
  writeFileSync(path.join(workspace, ".env"), `OPENAI_API_KEY=${KEY}\n`);
  return workspace;
}

/** Plays the session against a plain `app-server` (on-request, workspace-write) until it exits; `args` are its extra options. */
async function playWithAppServer(options: { home?: string; args?: string[] }): Promise<{ workspace: string; threadId: string }> {
  const mock = await startMockModel({ responses: RESPONSES });
  mocks.push(mock);
  const workspace = sessionWorkspace();
  const args = [...providerArgs(mock.url, { envKey: "RECORD_TEST_KEY" }), "-c", `approval_policy="on-request"`, "-c", `sandbox_mode="workspace-write"`, ...(options.args ?? [])];
  const server = ServerProcess.start({ home: options.home, args: ["app-server", ...args], env: { RECORD_TEST_KEY: KEY }, cwd: workspace });
  servers.push(server);
  const threadId = await driveSession(server, workspace);
  expect((await server.closeStdin()).code).toBe(0);
  return { workspace, threadId };
}

/** `replay --check` of a scenario, offline: no mock, no key. */
function replayCheck(scenarioFile: string) {
  return spawnSync(process.execPath, [CLI_PATH, "replay", scenarioFile, "--check"], { encoding: "utf8", timeout: 60_000, env: { ...process.env, RECORD_TEST_KEY: "" } });
}

describe("record", () => {
  it("records a session (streaming, an approved and a declined command, a patch, an interrupt, a second turn) that replays offline against its golden file", async () => {
    const mock = await startMockModel({ responses: RESPONSES });
    mocks.push(mock);
    const workspace = sessionWorkspace();
    const out = path.join(tempDir("aas-record-out-"), "golden", "session");
    const server = ServerProcess.start({
      args: [
        "record",
        "--out",
        out,
        ...providerArgs(mock.url, { envKey: "RECORD_TEST_KEY" }),
        "-c",
        `approval_policy="on-request"`,
        "-c",
        `sandbox_mode="workspace-write"`,
      ],
      env: { RECORD_TEST_KEY: KEY },
      cwd: workspace,
    });
    servers.push(server);
    await driveSession(server, workspace);
    const exit = await server.closeStdin(60_000);
    expect(exit.code, server.stderr).toBe(0);

    expect(existsSync(`${out}.scenario.json`) && existsSync(`${out}.jsonl`)).toBe(true);
    const scenarioText = readFileSync(`${out}.scenario.json`, "utf8");
    const golden = readFileSync(`${out}.jsonl`, "utf8");
    for (const text of [scenarioText, golden]) expect(text).not.toContain("RecordTestKey");
    const scenario = JSON.parse(scenarioText);
    expect(scenario.files).toEqual({ ".env": "OPENAI_API_KEY=[REDACTED]\n", "notes.md": "# Notes\nold line\n" });
    expect(scenario.model).toHaveLength(6);
    expect(scenario.model[5]).toMatchObject({ hang: true, items: [{ type: "message", deltas: ["Thinking ", "about it"] }] });
    expect(scenario.steps.filter((step: { answer?: string }) => step.answer).map((step: { result: unknown }) => step.result)).toEqual([{ decision: "accept" }, { decision: "decline" }]);
    expect(JSON.stringify(scenario.steps)).toContain("${threadId}");
    expect(golden).toContain('"status":"interrupted"');
    expect(golden).toContain("new line");

    // Offline: the mock is gone, and no key is set.
    await mock.close();
    mocks.splice(mocks.indexOf(mock), 1);
    const replay = replayCheck(`${out}.scenario.json`);
    expect(replay.stderr).toContain("ok");
    expect(replay.status, replay.stderr).toBe(0);
  }, 120_000);

  it("makes a scenario that replays from an audit log (--from-session-log), the model's responses rebuilt from the items", async () => {
    const logDir = tempDir("aas-record-log-");
    const { workspace } = await playWithAppServer({ args: ["--session-log", logDir] });
    // The session's changes are undone from the workspace as it is now, as record does at its end.
    const out = path.join(tempDir("aas-record-out-"), "from-log");
    const [log] = readdirSync(logDir);
    const convert = spawnSync(process.execPath, [CLI_PATH, "record", "--from-session-log", path.join(logDir, log!), "--out", out], { encoding: "utf8", timeout: 60_000, cwd: workspace });
    expect(convert.status, convert.stderr).toBe(0);
    const scenario = JSON.parse(readFileSync(`${out}.scenario.json`, "utf8"));
    expect(scenario.config).toEqual({ model: "gpt-5.5", approval_policy: "on-request", sandbox_mode: "workspace-write" });
    expect(scenario.files["notes.md"]).toBe("# Notes\nold line\n");
    expect(scenario.model.map((response: { items: Array<{ type: string }> }) => response.items.map((item) => item.type))).toEqual([
      ["message", "exec", "exec"],
      ["message"],
      ["exec", "apply_patch"],
      ["message"],
      ["message"],
    ]);
    expect(scenario.model[4].hang).toBe(true);
    for (const file of [`${out}.scenario.json`, `${out}.jsonl`]) expect(readFileSync(file, "utf8")).not.toContain("RecordTestKey");
    const replay = replayCheck(`${out}.scenario.json`);
    expect(replay.status, replay.stderr).toBe(0);
  }, 120_000);

  it("makes a scenario that replays from a stored thread (--from-thread), read without touching the home", async () => {
    const home = tempDir("aas-record-home-");
    const { threadId } = await playWithAppServer({ home });
    const out = path.join(tempDir("aas-record-out-"), "from-thread");
    const env = { ...process.env, AGENT_APP_SERVER_HOME: home, CODEX_HOME: home };
    const missing = spawnSync(process.execPath, [CLI_PATH, "record", "--from-thread", "no-such-thread", "--out", out], { encoding: "utf8", timeout: 60_000, env });
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain(`no stored thread no-such-thread in ${home}`);
    const convert = spawnSync(process.execPath, [CLI_PATH, "record", "--from-thread", threadId, "--out", out], { encoding: "utf8", timeout: 60_000, env });
    expect(convert.status, convert.stderr).toBe(0);
    const scenario = JSON.parse(readFileSync(`${out}.scenario.json`, "utf8"));
    expect(scenario.config).toEqual({ model: "gpt-5.5", approval_policy: "on-request", sandbox_mode: "workspace-write" });
    expect(scenario.files["notes.md"]).toBe("# Notes\nold line\n");
    expect(scenario.steps.filter((step: { answer?: string }) => step.answer).map((step: { result: unknown }) => step.result)).toEqual([{ decision: "decline" }]);
    expect(scenario.steps.map((step: { request?: string }) => step.request).filter(Boolean)).toEqual(["thread/start", "turn/start", "turn/start", "turn/start", "turn/interrupt"]);
    const replay = replayCheck(`${out}.scenario.json`);
    expect(replay.status, replay.stderr).toBe(0);
  }, 120_000);

  it("records what MCP servers answered (the model's calls, the client's own, resource reads), and the replay answers from that without them", async () => {
    const mock = await startMockModel({
      responses: [{ items: [{ type: "function_call", name: "mcp__calc__add", arguments: { a: 2, b: 5 }, callId: "call_add" }] }, { items: [{ type: "message", text: "It is 7." }] }],
    });
    mocks.push(mock);
    const workspace = tempDir("aas-record-ws-");
    const script = mcpServerScript();
    const out = path.join(tempDir("aas-record-out-"), "mcp");
    const server = ServerProcess.start({ args: ["record", "--out", out, ...providerArgs(mock.url), ...mcpArgs("calc", stdioTable(script))], cwd: workspace });
    servers.push(server);
    await server.initialize();
    await server.waitFor((m) => m.method === "mcpServer/startupStatus/updated" && m.params.status === "ready", "calc ready");
    const threadId = (await server.request("thread/start", { cwd: workspace })).result.thread.id;
    expect((await server.request("mcpServer/tool/call", { threadId, server: "calc", tool: "add", arguments: { a: 1, b: 1 } })).result.content).toEqual([{ type: "text", text: "The sum is 2" }]);
    expect((await server.request("mcpServer/resource/read", { threadId, server: "calc", uri: "memo://readme" })).result.contents[0].text).toBe("calc readme");
    await server.request("mcpServerStatus/list", {});
    const turnId = (await server.request("turn/start", { threadId, input: [{ type: "text", text: "Add 2 and 5." }] })).result.turn.id;
    await server.waitFor((m) => m.method === "turn/completed" && m.params.turn.id === turnId, "turn/completed", 20_000);
    expect((await server.closeStdin(60_000)).code, server.stderr).toBe(0);

    const scenario = JSON.parse(readFileSync(`${out}.scenario.json`, "utf8"));
    const calc = scenario.mcpServers.calc;
    expect(calc.serverInfo).toMatchObject({ name: "calc", version: "1.2.3" });
    expect(calc.tools.map((tool: { name: string }) => tool.name).sort()).toEqual(["add", "env", "slow"]);
    expect(calc.calls).toEqual([
      { tool: "add", arguments: { a: 1, b: 1 }, result: { content: [{ type: "text", text: "The sum is 2" }], isError: false } },
      { tool: "add", arguments: { a: 2, b: 5 }, result: { content: [{ type: "text", text: "The sum is 7" }], isError: false } },
    ]);
    expect(calc.resources).toEqual([{ uri: "memo://readme", contents: [{ uri: "memo://readme", mimeType: "text/plain", text: "calc readme" }] }]);
    // The replay starts no MCP server: with the script gone, the answers still come, from the recording.
    rmSync(script);
    const golden = readFileSync(`${out}.jsonl`, "utf8");
    expect(golden).toContain('"text":"The sum is 7"');
    expect(golden).toContain('"name":"calc","version":"1.2.3"');
    const replay = replayCheck(`${out}.scenario.json`);
    expect(replay.status, replay.stderr).toBe(0);
  }, 120_000);

  it("rebuilds MCP and client tool calls from an audit log and from a stored thread: the replays answer them as the session was answered", async () => {
    const lookup = { type: "function", name: "lookup_ticket", description: "Looks a ticket up.", inputSchema: { type: "object", properties: { id: { type: "string" } } } };
    const mock = await startMockModel({
      responses: [
        {
          items: [
            { type: "function_call", name: "mcp__calc__add", arguments: { a: 2, b: 5 }, callId: "call_add" },
            { type: "function_call", name: "lookup_ticket", arguments: { id: "T-7" }, callId: "call_lookup" },
          ],
        },
        { items: [{ type: "message", text: "7, and T-7 is on fire." }] },
      ],
    });
    mocks.push(mock);
    const home = tempDir("aas-record-home-");
    const logDir = tempDir("aas-record-log-");
    const workspace = tempDir("aas-record-ws-");
    const script = mcpServerScript();
    const args = ["app-server", "--session-log", logDir, ...providerArgs(mock.url), ...mcpArgs("calc", stdioTable(script))];
    const server = ServerProcess.start({ home, args, cwd: workspace });
    servers.push(server);
    server.onRequest("item/tool/call", () => ({ contentItems: [{ type: "inputText", text: "T-7: printer on fire" }], success: true }));
    await server.initialize({ experimentalApi: true });
    await server.waitFor((m) => m.method === "mcpServer/startupStatus/updated" && m.params.status === "ready", "calc ready");
    const threadId = (await server.request("thread/start", { cwd: workspace, dynamicTools: [lookup] })).result.thread.id;
    const turnId = (await server.request("turn/start", { threadId, input: [{ type: "text", text: "Add, then look T-7 up." }] })).result.turn.id;
    await server.waitFor((m) => m.method === "turn/completed" && m.params.turn.id === turnId, "turn/completed", 20_000);
    expect((await server.closeStdin()).code).toBe(0);
    rmSync(script);

    const env = { ...process.env, AGENT_APP_SERVER_HOME: home, CODEX_HOME: home };
    const [log] = readdirSync(logDir);
    for (const [name, from] of [["from-log", ["--from-session-log", path.join(logDir, log!)]], ["from-thread", ["--from-thread", threadId]]] as const) {
      const out = path.join(tempDir("aas-record-out-"), name);
      const convert = spawnSync(process.execPath, [CLI_PATH, "record", ...from, "--out", out], { encoding: "utf8", timeout: 60_000, cwd: workspace, env });
      expect(convert.status, convert.stderr).toBe(0);
      const scenario = JSON.parse(readFileSync(`${out}.scenario.json`, "utf8"));
      expect(scenario.model[0].items.map((item: { name: string }) => item.name)).toEqual(["mcp__calc__add", "lookup_ticket"]);
      expect(scenario.mcpServers.calc.calls).toEqual([{ tool: "add", arguments: { a: 2, b: 5 }, result: { content: [{ type: "text", text: "The sum is 7" }], isError: false } }]);
      expect(scenario.steps.find((step: { answer?: string }) => step.answer === "item/tool/call").result).toEqual({ contentItems: [{ type: "inputText", text: "T-7: printer on fire" }], success: true });
      const golden = readFileSync(`${out}.jsonl`, "utf8");
      for (const text of ['"text":"The sum is 7"', '"text":"T-7: printer on fire"', '"status":"completed"']) expect(golden, name).toContain(text);
      const replay = replayCheck(`${out}.scenario.json`);
      expect(replay.status, replay.stderr).toBe(0);
    }
  }, 120_000);

  it.each([
    ["WebSocket", "ws"],
    ["a Unix socket", "unix"],
  ] as const)("records over %s too, writing the files on SIGINT", async (_name, kind) => {
    const mock = await startMockModel({ responses: [{ items: [{ type: "message", deltas: ["Over ", "the socket."] }] }] });
    mocks.push(mock);
    const workspace = tempDir("aas-record-ws-");
    const out = path.join(tempDir("aas-record-out-"), "socket");
    const socket = path.join(tempDir("aas-record-sock-"), "s.sock");
    const listen = kind === "ws" ? "ws://127.0.0.1:0" : `unix://${socket}`;
    const server = ServerProcess.start({ args: ["record", "--out", out, "--listen", listen, ...providerArgs(mock.url)], protocol: false, cwd: workspace });
    servers.push(server);
    await server.waitForStderr(`listening on ${kind}://`);
    const url = kind === "ws" ? /listening on (ws:\/\/[0-9.]+:\d+)/.exec(server.stderr)![1]! : `ws+unix://${socket}:/`;
    const client = await AppServerClient.connect(url);
    const thread = await client.startThread({ cwd: workspace });
    expect(await AppServerClient.collectText(client.runTurn(thread.thread.id, "Say it over the socket."))).toBe("Over the socket.");
    await client.close();
    expect((await server.signal("SIGINT", 60_000)).code, server.stderr).toBe(0);
    const scenario = JSON.parse(readFileSync(`${out}.scenario.json`, "utf8"));
    expect(scenario.model).toEqual([expect.objectContaining({ items: [{ type: "message", deltas: ["Over ", "the socket."] }] })]);
    const replay = replayCheck(`${out}.scenario.json`);
    expect(replay.status, replay.stderr).toBe(0);
  }, 120_000);

  it("normalizes this machine's host and user names where commands printed them, so the scenario replays elsewhere", async () => {
    const mock = await startMockModel({
      responses: [{ items: [{ type: "exec", cmd: "hostname && whoami", callId: "call_who" }] }, { items: [{ type: "message", text: "That is where I am." }] }],
    });
    mocks.push(mock);
    const workspace = tempDir("aas-record-ws-");
    const out = path.join(tempDir("aas-record-out-"), "machine");
    const server = ServerProcess.start({ args: ["record", "--out", out, ...providerArgs(mock.url), "-c", `approval_policy="never"`, "-c", `sandbox_mode="danger-full-access"`], cwd: workspace });
    servers.push(server);
    await server.initialize();
    const threadId = (await server.request("thread/start", { cwd: workspace })).result.thread.id;
    const turnId = (await server.request("turn/start", { threadId, input: [{ type: "text", text: "Where are you?" }] })).result.turn.id;
    await server.waitFor((m) => m.method === "turn/completed" && m.params.turn.id === turnId, "turn/completed", 20_000);
    expect((await server.closeStdin(60_000)).code, server.stderr).toBe(0);
    const scenario = JSON.parse(readFileSync(`${out}.scenario.json`, "utf8"));
    expect(scenario.normalize).toEqual(["hostname", "user"]);
    const golden = readFileSync(`${out}.jsonl`, "utf8");
    expect(golden).toContain("{HOSTNAME}\\n{USER}\\n");
    expect(golden).not.toContain(os.hostname());
    expect(replayCheck(`${out}.scenario.json`).status).toBe(0);
    // Another machine: another host name (a UTS namespace) and another user (nobody). Needs root, as CI is.
    if (process.getuid?.() !== 0) return;
    chmodSync(path.dirname(out), 0o755);
    for (const file of [`${out}.scenario.json`, `${out}.jsonl`]) chmodSync(file, 0o644);
    const elsewhere = spawnSync(
      "unshare",
      ["--uts", "sh", "-c", 'hostname replay-host && exec setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"', "sh", process.execPath, CLI_PATH, "replay", `${out}.scenario.json`, "--check"],
      { encoding: "utf8", timeout: 60_000, env: { ...process.env, HOME: os.tmpdir() } },
    );
    expect(elsewhere.status, elsewhere.stderr).toBe(0);
  }, 120_000);
});
