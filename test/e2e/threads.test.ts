import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { ServerProcess } from "../support/serverProcess.js";

/** A temp home, removed once the test's servers have stopped (one still writing there, a shell snapshot say, would make the removal fail). */
function freshHome(): string {
  const home = mkdtempSync(path.join(os.tmpdir(), "aas-threads-"));
  onTestFinished(() => rmSync(home, { recursive: true, force: true }));
  return home;
}

async function started(server: ServerProcess, params: object = {}): Promise<any> {
  const response = await server.request("thread/start", { cwd: os.tmpdir(), ...params });
  expect(response.error).toBeUndefined();
  return response.result.thread;
}

function threadFiles(home: string, dir = "sessions"): string[] {
  const root = path.join(home, dir);
  if (!existsSync(root)) return [];
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name));
}

describe("threads", () => {
  it("answers thread/start with the session fields Codex sends, naming the AGENTS.md files its turns load", async () => {
    const workspace = mkdtempSync(path.join(os.tmpdir(), "aas-agents-"));
    try {
      writeFileSync(path.join(workspace, "AGENTS.md"), "Be brief.\n");
      const server = ServerProcess.start({ home: freshHome() });
      await server.initialize();
      const response = (await server.request("thread/start", { cwd: workspace })).result;
      expect(response).toMatchObject({
        instructionSources: [path.join(workspace, "AGENTS.md")],
        runtimeWorkspaceRoots: [workspace],
        disabledPluginIds: [],
        multiAgentMode: "explicitRequestOnly",
      });
      expect(response.thread).toMatchObject({
        environments: [{ environmentId: "local", cwd: workspace, runtimeWorkspaceRoots: [workspace] }],
        historyMode: "paginated",
        canAcceptDirectInput: true,
        section: null,
      });
      await server.closeStdin();
    } finally {
      rmSync(workspace, { recursive: true, force: true });
    }
  });

  it("answers thread/start before thread/started and stores the thread at once", async () => {
    const home = freshHome();
    const server = ServerProcess.start({ home });
    await server.initialize();
    const thread = await started(server);
    const announcement = await server.waitFor((m) => m.method === "thread/started");
    const responseIndex = server.messages.findIndex((m) => m.result?.thread?.id === thread.id);
    expect(server.messages.indexOf(announcement)).toBeGreaterThan(responseIndex);
    expect(announcement.params.thread.id).toBe(thread.id);
    expect(thread).toMatchObject({ status: { type: "idle" }, source: "vscode", ephemeral: false, turns: [], preview: "" });
    expect(thread.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(threadFiles(home)).toEqual([thread.path]);
    expect(path.relative(home, thread.path)).toMatch(/^sessions\/\d{4}\/\d{2}\/\d{2}\/rollout-.*\.jsonl$/);

    const second = ServerProcess.start({ home });
    await second.initialize();
    const resumed = await second.request("thread/resume", { threadId: thread.id });
    expect(resumed.result.thread.id).toBe(thread.id);
  });

  it("shows the same thread after a restart: list, read, resume", async () => {
    const home = freshHome();
    const first = ServerProcess.start({ home });
    await first.initialize();
    const thread = await started(first, { model: "gpt-5.5", sandbox: "workspace-write" });
    await first.request("thread/name/set", { threadId: thread.id, name: "my thread" });
    expect((await first.closeStdin()).code).toBe(0);

    const second = ServerProcess.start({ home });
    await second.initialize();
    const list = await second.request("thread/list", {});
    expect(list.result.data.map((t: any) => [t.id, t.name, t.status.type])).toEqual([[thread.id, "my thread", "notLoaded"]]);
    const read = await second.request("thread/read", { threadId: thread.id, includeTurns: true });
    expect(read.result.thread).toMatchObject({ id: thread.id, name: "my thread", turns: [], cwd: thread.cwd });
    const resumed = await second.request("thread/resume", { threadId: thread.id });
    expect(resumed.result).toMatchObject({ model: "gpt-5.5", sandbox: { type: "workspaceWrite" }, thread: { status: { type: "idle" } } });
    const loaded = await second.request("thread/loaded/list", {});
    expect(loaded.result.data).toEqual([thread.id]);
  });

  it("forks into an independent thread", async () => {
    const home = freshHome();
    const server = ServerProcess.start({ home });
    await server.initialize();
    const source = await started(server);
    await server.request("thread/name/set", { threadId: source.id, name: "original" });
    const fork = await server.request("thread/fork", { threadId: source.id, model: "other-model" });
    expect(fork.result.thread).toMatchObject({ forkedFromId: source.id, name: "original" });
    expect(fork.result.thread.id).not.toBe(source.id);
    expect(fork.result.model).toBe("other-model");
    await server.waitFor((m) => m.method === "thread/started" && m.params.thread.id === fork.result.thread.id);
    await server.request("thread/name/set", { threadId: fork.result.thread.id, name: "diverged" });
    const original = await server.request("thread/read", { threadId: source.id });
    expect(original.result.thread.name).toBe("original");
    const forked = await server.request("thread/read", { threadId: fork.result.thread.id });
    expect(forked.result.thread.name).toBe("diverged");
  });

  it("archives and unarchives, moving the file and telling the client", async () => {
    const home = freshHome();
    const server = ServerProcess.start({ home });
    await server.initialize();
    const thread = await started(server);
    const archived = await server.request("thread/archive", { threadId: thread.id });
    expect(archived.result).toEqual({});
    const statusIndex = server.messages.findIndex((m) => m.method === "thread/status/changed" && m.params.status.type === "notLoaded");
    const responseIndex = server.messages.indexOf(archived);
    expect(statusIndex).toBeGreaterThan(-1);
    expect(statusIndex).toBeLessThan(responseIndex);
    await server.waitFor((m) => m.method === "thread/archived" && m.params.threadId === thread.id);
    expect(threadFiles(home)).toEqual([]);
    expect(threadFiles(home, "archived_sessions")).toHaveLength(1);
    expect((await server.request("thread/list", {})).result.data).toEqual([]);
    expect((await server.request("thread/list", { archived: true })).result.data.map((t: any) => t.id)).toEqual([thread.id]);

    const back = await server.request("thread/unarchive", { threadId: thread.id });
    expect(back.result.thread).toMatchObject({ id: thread.id, status: { type: "notLoaded" } });
    await server.waitFor((m) => m.method === "thread/unarchived");
    expect(threadFiles(home)).toHaveLength(1);
    expect((await server.request("thread/list", {})).result.data.map((t: any) => t.id)).toEqual([thread.id]);
  });

  it("pages through three pages with a thread added between pages: none repeated, none skipped", async () => {
    const server = ServerProcess.start({ home: freshHome() });
    await server.initialize();
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push((await started(server)).id);
    const first = await server.request("thread/list", { limit: 3 });
    const added = await started(server);
    const second = await server.request("thread/list", { limit: 3, cursor: first.result.nextCursor });
    const third = await server.request("thread/list", { limit: 3, cursor: second.result.nextCursor });
    expect(third.result.nextCursor).toBeNull();
    const seen = [...first.result.data, ...second.result.data, ...third.result.data].map((t: any) => t.id);
    expect(seen).toEqual([...ids].reverse());
    expect(seen).not.toContain(added.id);
    const fresh = await server.request("thread/list", { limit: 1 });
    expect(fresh.result.data[0].id).toBe(added.id);
    const bad = await server.request("thread/list", { cursor: "garbage" });
    expect(bad.error).toEqual({ code: -32600, message: "invalid cursor: garbage" });
    // backwardsCursor: the other direction, from the page's first thread (it included).
    const back = await server.request("thread/list", { limit: 10, sortDirection: "asc", cursor: second.result.backwardsCursor });
    expect(back.result.data.map((t: any) => t.id)).toEqual([...ids.slice(3), added.id]);
    const forward = await server.request("thread/list", { limit: 2, sortDirection: "asc" });
    const again = await server.request("thread/list", { limit: 10, cursor: forward.result.backwardsCursor });
    expect(again.result.data.map((t: any) => t.id)).toEqual([ids[0]]);
    expect((await server.request("thread/list", { archived: true })).result.backwardsCursor).toBeNull();
  });

  it("recovers a thread whose file ends in a torn line, and appends after it cleanly", async () => {
    const home = freshHome();
    const first = ServerProcess.start({ home });
    await first.initialize();
    const thread = await started(first);
    await first.request("thread/name/set", { threadId: thread.id, name: "kept" });
    await first.closeStdin();
    appendFileSync(thread.path, '{"type":"name","at":1,"na');

    const second = ServerProcess.start({ home });
    await second.initialize();
    const read = await second.request("thread/read", { threadId: thread.id });
    expect(read.result.thread.name).toBe("kept");
    await second.waitForStderr("torn line");
    await second.request("thread/resume", { threadId: thread.id });
    await second.request("thread/name/set", { threadId: thread.id, name: "after" });
    await second.closeStdin();
    const lines = readFileSync(thread.path, "utf8").trimEnd().split("\n");
    expect(lines.map((line) => JSON.parse(line).type)).toEqual(["thread", "name", "name"]);
  });

  it("starts 50 threads at once", async () => {
    const home = freshHome();
    const server = ServerProcess.start({ home });
    await server.initialize();
    const responses = await Promise.all(Array.from({ length: 50 }, () => server.request("thread/start", {})));
    const ids = new Set(responses.map((r) => r.result.thread.id));
    expect(ids.size).toBe(50);
    expect(threadFiles(home)).toHaveLength(50);
    // Each thread was in the index file before its response, though the lines share writes.
    const indexed = readFileSync(path.join(home, "thread_index.jsonl"), "utf8").trimEnd().split("\n").map((line) => JSON.parse(line).id);
    expect(new Set(indexed)).toEqual(ids);
    const list = await server.request("thread/list", { limit: 100 });
    expect(list.result.data).toHaveLength(50);
  });

  it("names unknown ids in its errors", async () => {
    const server = ServerProcess.start({ home: freshHome() });
    await server.initialize();
    const id = "01a00000-0000-7000-8000-000000000000";
    expect((await server.request("thread/read", { threadId: id })).error).toEqual({ code: -32600, message: `thread not found: ${id}` });
    for (const method of ["thread/resume", "thread/archive", "thread/unarchive", "thread/fork"]) {
      const response = await server.request(method, { threadId: id });
      expect(response.error, method).toEqual({ code: -32600, message: `no rollout found for thread id ${id}` });
    }
    const named = await server.request("thread/name/set", { threadId: id, name: "x" });
    expect(named.error.message).toBe(`no rollout found for thread id ${id}`);
    expect((await server.request("thread/unsubscribe", { threadId: id })).result).toEqual({ status: "notLoaded" });
    for (const method of ["thread/read", "thread/resume", "thread/turns/list", "turn/start", "turn/interrupt"]) {
      const response = await server.request(method, { threadId: "not-a-uuid", turnId: "t", input: [] });
      expect(response.error, method).toEqual({ code: -32600, message: "invalid thread id: expected a UUID, found `not-a-uuid`" });
    }
  });

  it("stops notifying a client that unsubscribed, and notifies it again once it resumes", async () => {
    const server = ServerProcess.start({ home: freshHome() });
    await server.initialize();
    const thread = await started(server);
    expect((await server.request("thread/unsubscribe", { threadId: thread.id })).result).toEqual({ status: "unsubscribed" });
    expect((await server.request("thread/unsubscribe", { threadId: thread.id })).result).toEqual({ status: "notSubscribed" });
    await server.request("thread/name/set", { threadId: thread.id, name: "quiet" });
    await server.request("thread/loaded/list", {}, "sentinel");
    expect(server.messages.filter((m) => m.method === "thread/name/updated")).toEqual([]);
    await server.request("thread/resume", { threadId: thread.id });
    await server.request("thread/name/set", { threadId: thread.id, name: "loud" });
    const update = await server.waitFor((m) => m.method === "thread/name/updated");
    expect(update.params).toEqual({ threadId: thread.id, threadName: "loud" });
  });

  it("unloads an idle thread nobody is subscribed to after the configured delay", async () => {
    const server = ServerProcess.start({ home: freshHome(), args: ["app-server", "-c", "thread_unload_delay_secs=0"] });
    await server.initialize();
    const thread = await started(server);
    await server.request("thread/unsubscribe", { threadId: thread.id });
    const closed = await server.waitFor((m) => m.method === "thread/closed" && m.params.threadId === thread.id);
    const status = server.messages.find((m) => m.method === "thread/status/changed" && m.params.status.type === "notLoaded");
    expect(server.messages.indexOf(status)).toBeLessThan(server.messages.indexOf(closed));
    expect((await server.request("thread/loaded/list", {})).result.data).toEqual([]);
    expect((await server.request("thread/unsubscribe", { threadId: thread.id })).result).toEqual({ status: "notLoaded" });
    expect((await server.request("thread/read", { threadId: thread.id })).result.thread.status).toEqual({ type: "notLoaded" });
  });

  it("keeps ephemeral threads off disk", async () => {
    const home = freshHome();
    const server = ServerProcess.start({ home });
    await server.initialize();
    const thread = await started(server, { ephemeral: true });
    expect(thread).toMatchObject({ ephemeral: true, path: null });
    expect(threadFiles(home)).toEqual([]);
    expect((await server.request("thread/list", {})).result.data).toEqual([]);
    expect((await server.request("thread/read", { threadId: thread.id })).result.thread.id).toBe(thread.id);
  });

  it("rebuilds a lost index from the thread files", async () => {
    const home = freshHome();
    const first = ServerProcess.start({ home });
    await first.initialize();
    const thread = await started(first);
    await first.closeStdin();
    rmSync(path.join(home, "thread_index.jsonl"));
    const second = ServerProcess.start({ home });
    await second.initialize();
    expect((await second.request("thread/list", {})).result.data.map((t: any) => t.id)).toEqual([thread.id]);
  });
});
