import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { startMockModel, type MockModel, type MockResponseInput } from "../../src/testing/index.js";
import { checkServerMessage, referenceAvailable } from "../conformance/referenceSchema.js";
import { ServerProcess, WAIT_MS } from "../support/serverProcess.js";

// Plays what the official Codex TUI (codex-cli 0.169.0, `codex --remote ws://…`) sends, frame for
// frame as recorded in ../shared/tui/TUI-PROFILE.md §3: no "jsonrpc" field, string and integer ids,
// the zstd compression offer, a bare Close frame. Every server message is checked against the
// reference schema (experimental methods against ours).

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A raw WebSocket client that records every frame and answers nothing on its own. */
class TuiLikeClient {
  readonly frames: any[] = [];
  readonly problems: string[] = [];
  readonly upgradeHeaders: Record<string, unknown> = {};
  private readonly sent = new Map<unknown, string>();
  private readonly waiters = new Set<() => void>();

  private constructor(readonly socket: WebSocket) {
    socket.on("upgrade", (response) => Object.assign(this.upgradeHeaders, response.headers));
    socket.on("message", (data, isBinary) => {
      if (isBinary) this.problems.push("binary frame");
      const message = JSON.parse(String(data));
      this.frames.push(message);
      if (referenceAvailable) this.problems.push(...checkServerMessage(message, (id) => this.sent.get(id)));
      for (const wake of [...this.waiters]) wake();
    });
  }

  static async connect(url: string): Promise<TuiLikeClient> {
    const socket = new WebSocket(url, { headers: { "x-codex-app-server-compression": "zstd-stream-v1" }, perMessageDeflate: false });
    const client = new TuiLikeClient(socket);
    await new Promise((resolve, reject) => {
      socket.once("open", resolve);
      socket.once("error", reject);
    });
    return client;
  }

  send(message: Record<string, unknown>): void {
    if ("id" in message && "method" in message) this.sent.set(message.id, String(message.method));
    this.socket.send(JSON.stringify(message));
  }

  /** Resolves with the first frame (from `from` on) that matches. */
  waitFor(match: (message: any) => boolean, what: string, from = 0): Promise<any> {
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        const found = this.frames.slice(from).find(match);
        if (found === undefined) return false;
        this.waiters.delete(wake);
        clearTimeout(timer);
        resolve(found);
        return true;
      };
      const wake = () => void check();
      const timer = setTimeout(() => {
        this.waiters.delete(wake);
        reject(new Error(`timed out waiting for ${what}; last frames: ${JSON.stringify(this.frames.slice(-5))}`));
      }, WAIT_MS);
      if (!check()) this.waiters.add(wake);
    });
  }

  /** Sends a request and resolves with its result (rejects on an error answer). */
  async request(id: string | number, method: string, params?: unknown): Promise<any> {
    this.send(params === undefined ? { id, method } : { id, method, params });
    const answer = await this.waitFor((m) => m.id === id && !("method" in m), `the answer to ${method}`);
    if (answer.error) throw new Error(`${method} failed: ${JSON.stringify(answer.error)}`);
    return answer.result;
  }

  notifications(method: string, threadId?: string): any[] {
    return this.frames.filter((m) => m.method === method && !("id" in m) && (!threadId || m.params.threadId === threadId));
  }
}

interface Started {
  readonly url: string;
  readonly server: ServerProcess;
}

function startServer(mock: MockModel, home: string, workspace: string): Promise<Started> {
  const server = ServerProcess.start({
    home,
    cwd: workspace,
    protocol: false,
    args: [
      "app-server",
      "--listen",
      "ws://127.0.0.1:0",
      "-c",
      `model_provider="mock"`,
      "-c",
      `model_providers.mock={name="mock",base_url="${mock.url}",wire_api="responses",request_max_retries=0,stream_max_retries=0}`,
      "-c",
      `model="gpt-5.5"`,
      "-c",
      `approval_policy="on-request"`,
      "-c",
      `sandbox_mode="workspace-write"`,
    ],
  });
  // WebSocket mode does not watch stdin: SIGTERM is how it is stopped.
  cleanups.push(async () => {
    expect((await server.signal("SIGTERM")).code).toBe(0);
    await server.stop();
  });
  return server.waitForStderr("listening on ws://").then(() => ({
    url: /listening on (ws:\/\/[0-9.]+:\d+)/.exec(server.stderr)![1]!,
    server,
  }));
}

/** The TUI's start-up requests (§3 #1–#22), with its exact params; returns the new thread's id. */
async function bootstrap(client: TuiLikeClient, workspace: string): Promise<string> {
  const init = await client.request("initialize", "initialize", {
    clientInfo: { name: "codex-tui", title: null, version: "0.169.0" },
    capabilities: { requiredHumanApproval: true, experimentalApi: true, requestAttestation: false, optOutNotificationMethods: null },
  });
  expect(init.userAgent).toMatch(/^codex-tui\/0\.169\.0 .*agent-app-server\//);
  client.send({ method: "initialized" });
  expect(await client.request(1, "account/read", {})).toMatchObject({ account: null, requiresOpenaiAuth: false });
  const models = await client.request(2, "model/list", { modelProvider: null, cursor: null, limit: null, includeHidden: true });
  const defaults = models.data.filter((model: any) => model.isDefault);
  expect(defaults.map((model: any) => [model.model, model.displayName, model.upgrade ?? null])).toEqual([["gpt-5.5", "GPT-5.5", null]]);
  expect(models.data.map((model: any) => model.id)).toContain("gpt-5.5-mini");
  expect(defaults[0].supportedReasoningEfforts.length).toBeGreaterThan(0);
  const [hooks, govCloud] = await Promise.all([
    client.request(`hooks-list-${randomUUID()}`, "hooks/list", { cwds: ["/tui/local/cwd"], threadId: null }),
    client.request(randomUUID(), "account/bedrock/checkGovCloudRequirements", {}),
  ]);
  expect(hooks.data).toEqual([{ cwd: "/tui/local/cwd", hooks: [], errors: [], warnings: [] }]);
  expect(govCloud).toEqual({ isGovCloud: false, shouldWarn: false });
  const config = await client.request(`tui-config-read-${randomUUID()}`, "config/read", { includeLayers: true, cwd: "." });
  expect(config.config).toMatchObject({ model: "gpt-5.5", model_provider: "mock", approval_policy: "on-request", sandbox_mode: "workspace-write" });
  expect(config.origins.model.name).toEqual({ type: "sessionFlags" });
  expect(config.layers.map((layer: any) => layer.name.type)).toEqual(["sessionFlags", "user"]);
  await client.request(3, "account/read", {});
  expect(await client.request(4, "configRequirements/read")).toMatchObject({ requirements: null });
  const modes = await client.request(`collaboration-mode-list-${randomUUID()}`, "collaborationMode/list", {});
  expect(modes.data.map((mode: any) => mode.mode)).toContain("default");
  const started = await client.request(`startup-thread-start-${randomUUID()}`, "thread/start", {
    model: null,
    modelProvider: null,
    cwd: null,
    runtimeWorkspaceRoots: null,
    approvalPolicy: null,
    sandbox: "read-only",
    config: {},
    ephemeral: false,
    historyMode: "paginated",
    threadSource: "user",
    dynamicTools: [
      {
        type: "namespace",
        name: "codex_tui",
        description: "Manage Codex tasks available through the connected app server.",
        tools: [{ type: "function", name: "list_threads", description: "List tasks.", inputSchema: { type: "object", properties: {} }, deferLoading: true }],
      },
    ],
  });
  expect(started.thread.sessionId).toBe(started.thread.id);
  expect(started.cwd).toBe(workspace);
  expect(started.sandbox.type).toBe("readOnly");
  const threadId: string = started.thread.id;
  const listParams = { currentAccountOnly: true, archived: false, useStateDbOnly: true };
  const answers = await Promise.all([
    client.request(randomUUID(), "thread/list", { ...listParams, limit: 100, sortKey: "section_position", sectionId: "01984de2-8f74-7c91-a3b2-5c5e937cf318" }),
    client.request(`startup-skills-list-${randomUUID()}`, "skills/list", { cwds: ["/tui/local/cwd"], forceReload: true }),
    client.request(5, "skills/list", { cwds: [workspace], forceReload: true }),
    client.request(`plugin-installed-${randomUUID()}`, "plugin/installed", { cwds: ["/tui/local/cwd"], installSuggestionPluginNames: null }),
    client.request(randomUUID(), "thread/list", { ...listParams, limit: 100, sortKey: "section_position", sourceKinds: ["exec", "appServer"] }),
    client.request(randomUUID(), "thread/loaded/list", {}),
    client.request(randomUUID(), "thread/list", { ...listParams, limit: 10, sortKey: "recency_at" }),
    client.request(randomUUID(), "thread/read", { threadId }),
    client.request(randomUUID(), "thread/turns/list", { threadId, limit: 1 }),
  ]);
  expect(answers[0].data.map((thread: any) => thread.id)).toContain(threadId);
  expect(answers[2].data).toEqual([{ cwd: workspace, skills: [], errors: [] }]);
  expect(answers[5].data).toContain(threadId);
  return threadId;
}

const TUI_TURN_FIELDS = {
  turnTrigger: "user",
  runtimeWorkspaceRoots: [],
  approvalPolicy: "on-request",
  model: "gpt-5.5",
  serviceTier: "default",
  collaborationMode: { mode: "default", settings: { model: "gpt-5.5", reasoning_effort: null, developer_instructions: null } },
};

async function turn(client: TuiLikeClient, id: number, threadId: string, text: string, workspace: string): Promise<any> {
  const from = client.frames.length;
  const { turn: started } = await client.request(id, "turn/start", {
    threadId,
    clientUserMessageId: randomUUID(),
    input: [{ type: "text", text, text_elements: [] }],
    cwd: workspace,
    ...TUI_TURN_FIELDS,
  });
  expect(started.status).toBe("inProgress");
  return { turnId: started.id, from };
}

describe("the Codex TUI's session, played over WebSocket", () => {
  it("bootstraps, runs a turn, titles the thread, remembers a command prefix, and quits quietly", async () => {
    const workspace = mkdtempSync(path.join(os.tmpdir(), "aas-tui-ws-"));
    const home = mkdtempSync(path.join(os.tmpdir(), "aas-tui-home-"));
    cleanups.push(() => rmSync(workspace, { recursive: true, force: true }), () => rmSync(home, { recursive: true, force: true }));
    const escalated = { sandbox_permissions: "require_escalated", justification: "Write marker files" };
    const responses: MockResponseInput[] = [
      { items: [{ type: "message", deltas: ["PINEAPPLE", "-42"] }] },
      { items: [{ type: "message", text: '{"title":"Magic word task"}' }] },
      { items: [{ type: "exec", cmd: "touch first.txt", callId: "call_1", ...escalated }] },
      { items: [{ type: "message", text: "first done" }] },
      { items: [{ type: "exec", cmd: "touch second.txt", callId: "call_2", ...escalated }] },
      { items: [{ type: "message", text: "second done" }] },
    ];
    const mock = await startMockModel({ responses, models: ["gpt-5.5-mini"] });
    cleanups.push(() => mock.close());
    const { url, server } = await startServer(mock, home, workspace);
    const client = await TuiLikeClient.connect(url);
    cleanups.push(() => client.socket.terminate());
    expect(client.upgradeHeaders["x-codex-app-server-compression"]).toBeUndefined();
    expect(client.upgradeHeaders["sec-websocket-protocol"]).toBeUndefined();

    const threadId = await bootstrap(client, workspace);

    // A text turn: deltas, then unread tracking before turn/completed, then the client marks it read.
    const first = await turn(client, 6, threadId, "Say the magic word.", workspace);
    const completed = await client.waitFor((m) => m.method === "turn/completed" && m.params.turn.id === first.turnId, "turn/completed", first.from);
    const changed = client.notifications("thread/readState/changed", threadId);
    expect(changed.at(-1).params.readState.firstUnread).toEqual({ type: "turn", turnId: first.turnId });
    expect(client.frames.indexOf(changed.at(-1))).toBeLessThan(client.frames.indexOf(completed));
    const read = await client.request(randomUUID(), "thread/readState/update", {
      threadId,
      operation: { type: "read" },
      expectedRevision: changed.at(-1).params.readState.revision,
    });
    expect(read.readState.firstUnread ?? null).toBeNull();

    // The title flow: an ephemeral thread whose turn has an output schema, then thread/name/set.
    await client.request(`tui-config-read-${randomUUID()}`, "config/read", { cwd: workspace });
    const titleThread = await client.request(`temporary-structured-${randomUUID()}`, "thread/start", {
      model: "gpt-5.5",
      modelProvider: "mock",
      cwd: workspace,
      runtimeWorkspaceRoots: [],
      sandbox: "read-only",
      config: { "features.shell_tool": false, "features.unified_exec": false, web_search: "disabled", mcp_servers: {}, default_permissions: ":read-only" },
      ephemeral: true,
      threadSource: "thread_title",
      environments: [],
      dynamicTools: [],
      selectedCapabilityRoots: [],
    });
    expect(titleThread.thread.ephemeral).toBe(true);
    const outputSchema = {
      type: "object",
      properties: { title: { type: "string", minLength: 1, maxLength: 36 } },
      required: ["title"],
      additionalProperties: false,
    };
    const titleTurn = await client.request(`temporary-structured-turn-${randomUUID()}`, "turn/start", {
      threadId: titleThread.thread.id,
      input: [{ type: "text", text: "Generate a concise task title for: Say the magic word.", text_elements: [] }],
      outputSchema,
    });
    const titleDone = await client.waitFor((m) => m.method === "turn/completed" && m.params.turn.id === titleTurn.turn.id, "the title turn");
    expect(titleDone.params.turn.status).toBe("completed");
    expect(mock.requests[1]!.body.text).toEqual({ format: { type: "json_schema", strict: true, name: "codex_output_schema", schema: outputSchema } });
    const titleMessage = client.notifications("item/completed", titleThread.thread.id).find((m) => m.params.item.type === "agentMessage");
    const { title } = JSON.parse(titleMessage.params.item.text);
    expect(client.notifications("thread/readState/changed", titleThread.thread.id)).toEqual([]);
    expect(await client.request(randomUUID(), "thread/unsubscribe", { threadId: titleThread.thread.id })).toEqual({ status: "unsubscribed" });
    await client.request(`picker-${randomUUID()}-1`, "thread/read", { threadId });
    expect(await client.request(`picker-${randomUUID()}-2`, "thread/name/set", { threadId, name: title })).toEqual({});
    await client.waitFor((m) => m.method === "thread/name/updated" && m.params.threadName === "Magic word task", "thread/name/updated");

    // An escalated command: the approval offers the prefix amendment; accepting it covers the next one.
    const second = await turn(client, 7, threadId, "Please run the approved command.", workspace);
    const approval = await client.waitFor((m) => m.method === "item/commandExecution/requestApproval", "the approval request", second.from);
    expect(approval.params).toMatchObject({ environmentId: "local", proposedExecpolicyAmendment: ["touch", "first.txt"] });
    expect(approval.params.availableDecisions).toContainEqual({ acceptWithExecpolicyAmendment: { execpolicy_amendment: ["touch", "first.txt"] } });
    client.send({ id: approval.id, result: { decision: { acceptWithExecpolicyAmendment: { execpolicy_amendment: ["touch"] } } } });
    await client.waitFor((m) => m.method === "turn/completed" && m.params.turn.id === second.turnId, "the command turn", second.from);
    const third = await turn(client, 8, threadId, "Run another one.", workspace);
    const thirdDone = await client.waitFor((m) => m.method === "turn/completed" && m.params.turn.id === third.turnId, "the second command turn", third.from);
    expect(thirdDone.params.turn.status).toBe("completed");
    expect(client.frames.slice(third.from).filter((m) => m.method === "item/commandExecution/requestApproval")).toEqual([]);
    const commands = client.notifications("item/completed", threadId).filter((m) => m.params.item.type === "commandExecution");
    expect(commands.map((m) => [m.params.item.id, m.params.item.status])).toEqual([
      ["call_1", "completed"],
      ["call_2", "completed"],
    ]);

    // /quit: unsubscribe, then a Close frame without a status code; the server logs no problem.
    expect(await client.request(9, "thread/unsubscribe", { threadId })).toEqual({ status: "unsubscribed" });
    const closed = new Promise((resolve) => client.socket.once("close", resolve));
    client.socket.close();
    await closed;
    expect(client.problems).toEqual([]);
    const problems = server.stderr.split("\n").filter((line) => /"level":(40|50|60)/.test(line));
    expect(problems).toEqual([]);
  });

  it("reconnects after a restart: thread/read then thread/resume, even for a thread with no turn yet", async () => {
    const workspace = mkdtempSync(path.join(os.tmpdir(), "aas-tui-ws-"));
    const home = mkdtempSync(path.join(os.tmpdir(), "aas-tui-home-"));
    cleanups.push(() => rmSync(workspace, { recursive: true, force: true }), () => rmSync(home, { recursive: true, force: true }));
    const mock = await startMockModel({ responses: [{ items: [{ type: "message", text: "still here" }] }], models: ["gpt-5.5-mini"] });
    cleanups.push(() => mock.close());
    const before = await startServer(mock, home, workspace);
    const client = await TuiLikeClient.connect(before.url);
    cleanups.push(() => client.socket.terminate());
    const threadId = await bootstrap(client, workspace);
    await before.server.signal("SIGTERM");

    const after = await startServer(mock, home, workspace);
    const again = await TuiLikeClient.connect(after.url);
    cleanups.push(() => again.socket.terminate());
    await again.request("initialize", "initialize", { clientInfo: { name: "codex-tui", title: null, version: "0.169.0" }, capabilities: { experimentalApi: true } });
    again.send({ method: "initialized" });
    expect((await again.request(1, "thread/read", { threadId })).thread.status).toEqual({ type: "notLoaded" });
    const resumed = await again.request(2, "thread/resume", { threadId, cwd: null, sandbox: "read-only" });
    expect(resumed.thread.id).toBe(threadId);
    const next = await turn(again, 3, threadId, "Are you there?", workspace);
    const done = await again.waitFor((m) => m.method === "turn/completed" && m.params.turn.id === next.turnId, "the turn after reconnecting");
    expect(done.params.turn.status).toBe("completed");
    expect(again.problems).toEqual([]);
  });
});
