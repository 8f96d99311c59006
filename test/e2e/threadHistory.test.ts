import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ServerProcess } from "../support/serverProcess.js";
import { launch, runTurn, startThread, tempDir } from "../support/turnHarness.js";
import { bwrapAvailable } from "../support/sandbox.js";

describe("thread history methods", () => {
  it("pages a thread's items with thread/items/list: both directions, cursors, anchors, one turn", async () => {
    const { server } = await launch([{ items: [{ type: "message", text: "First answer." }] }, { items: [{ type: "message", text: "Second answer." }] }]);
    const threadId = await startThread(server);
    const one = await runTurn(server, threadId, "First question.");
    const two = await runTurn(server, threadId, "Second question.");
    const list = async (params: object) => {
      const response = await server.request("thread/items/list", { threadId, ...params });
      expect(response.error, JSON.stringify(params)).toBeUndefined();
      return response.result;
    };
    const all = await list({});
    expect(all.data.map((entry: any) => [entry.turnId, entry.item.type])).toEqual([
      [one.turnId, "userMessage"],
      [one.turnId, "agentMessage"],
      [two.turnId, "userMessage"],
      [two.turnId, "agentMessage"],
    ]);
    expect(all.data[1].item.text).toBe("First answer.");
    expect(all.nextCursor).toBeNull();
    expect(all.data[0].startedAtMs).toEqual(expect.any(Number));

    const first = await list({ limit: 3 });
    expect(first.data).toHaveLength(3);
    const rest = await list({ limit: 3, cursor: first.nextCursor });
    expect(rest.data.map((entry: any) => entry.item.text)).toEqual(["Second answer."]);
    expect(rest.nextCursor).toBeNull();
    // Turning back from the last page starts at its first item (included), then what came before it, newest first.
    const back = await list({ sortDirection: "desc", cursor: rest.backwardsCursor, limit: 2 });
    expect(back.data.map((entry: any) => [entry.turnId, entry.item.type])).toEqual([
      [two.turnId, "agentMessage"],
      [two.turnId, "userMessage"],
    ]);

    const newest = await list({ sortDirection: "desc", limit: 1 });
    expect(newest.data[0].item.text).toBe("Second answer.");
    const ofTurn = await list({ turnId: one.turnId });
    expect(ofTurn.data.map((entry: any) => entry.turnId)).toEqual([one.turnId, one.turnId]);
    const afterAnchor = await list({ turnId: one.turnId, cursor: { type: "item", itemId: ofTurn.data[0].item.id } });
    expect(afterAnchor.data.map((entry: any) => entry.item.type)).toEqual(["agentMessage"]);

    expect((await server.request("thread/items/list", { threadId, cursor: "bogus" })).error).toEqual({ code: -32600, message: "invalid cursor: bogus" });
    expect(await list({ turnId: "nope" })).toEqual({ data: [], nextCursor: null, backwardsCursor: null });
    const unknown = "01a00000-0000-7000-8000-000000000000";
    expect((await server.request("thread/items/list", { threadId: unknown })).error).toEqual({ code: -32600, message: `thread not found: ${unknown}` });
  });

  it("reverts the history to before a turn (what the model sees too), and injects raw items the next turn's model sees", async () => {
    const answers = ["One.", "Two.", "Three.", "Four."].map((text) => ({ items: [{ type: "message" as const, text }] }));
    const { server, mock } = await launch(answers);
    const threadId = await startThread(server);
    const first = await runTurn(server, threadId, "First question.");
    const second = await runTurn(server, threadId, "Second question.");
    await runTurn(server, threadId, "Third question.");
    const reverted = await server.request("thread/revert", { threadId, beforeTurnId: second.turnId });
    // The cursors name the newest turn and item left: the first turn and its answer.
    expect(reverted.result).toMatchObject({ thread: { id: threadId, turns: [] } });
    expect(Object.keys(reverted.result)).toEqual(["thread", "turnsBackwardsCursor", "itemsBackwardsCursor"]);
    const turns = (await server.request("thread/turns/list", { threadId, cursor: reverted.result.turnsBackwardsCursor })).result.data;
    expect(turns.map((turn: any) => turn.id)).toEqual([first.turnId]);
    const newestItem = (await server.request("thread/items/list", { threadId, cursor: reverted.result.itemsBackwardsCursor, sortDirection: "desc", limit: 1 })).result.data;
    expect(newestItem.map((entry: any) => [entry.turnId, entry.item.text])).toEqual([[first.turnId, "One."]]);
    expect((await server.request("thread/items/list", { threadId })).result.data.map((entry: any) => entry.turnId)).toEqual([first.turnId, first.turnId]);

    const injected = await server.request("thread/inject_items", {
      threadId,
      items: [{ type: "message", role: "developer", content: [{ type: "input_text", text: "Remember: the answer is blue." }] }],
    });
    expect(injected.result).toEqual({});
    await runTurn(server, threadId, "Fourth question.");
    const seen = JSON.stringify(mock.requests.at(-1)!.body.input);
    expect(seen).toContain("First question.");
    expect(seen).not.toContain("Second question.");
    expect(seen).not.toContain("Third question.");
    expect(seen).toContain("Remember: the answer is blue.");

    expect((await server.request("thread/revert", { threadId, beforeTurnId: "nope" })).error.message).toBe(`turn nope is not a turn of thread ${threadId}`);
    const bad = await server.request("thread/inject_items", { threadId, items: [{ type: "web_search_call", id: "x" }] });
    expect(bad.error).toEqual({ code: -32600, message: "items[0] (web_search_call) is not a message, tool call or tool output this server can inject" });
  });

  it("announces changed settings with thread/settings/updated, after the turn/start response, to experimental clients", async () => {
    const { server } = await launch(
      [{ items: [{ type: "message", text: "Hi." }] }, { items: [{ type: "message", text: "Again." }] }, { items: [{ type: "message", text: "Once more." }] }],
      { capabilities: { experimentalApi: true } },
    );
    const threadId = await startThread(server);
    const { turnId } = await runTurn(server, threadId, "Hi.", { model: "gpt-5.5-mini", approvalPolicy: "never" });
    const updates = server.messages.filter((m) => m.method === "thread/settings/updated");
    expect(updates).toHaveLength(1);
    expect(updates[0].params).toMatchObject({
      threadId,
      threadSettings: { model: "gpt-5.5-mini", approvalPolicy: "never", collaborationMode: { mode: "default", settings: { model: "gpt-5.5-mini" } } },
    });
    const responseAt = server.messages.findIndex((m) => m.result?.turn?.id === turnId);
    expect(server.messages.indexOf(updates[0])).toBeGreaterThan(responseAt);
    // The same settings again change nothing, and announce nothing; a short sandbox policy is stored with Codex's defaults.
    await runTurn(server, threadId, "Again.", { model: "gpt-5.5-mini", sandboxPolicy: { type: "workspaceWrite" } });
    await runTurn(server, threadId, "Once more.", { sandboxPolicy: { type: "workspaceWrite" } });
    const later = server.messages.filter((m) => m.method === "thread/settings/updated");
    expect(later.map((m) => m.params.threadSettings.sandboxPolicy)).toEqual([
      { type: "readOnly", networkAccess: false },
      { type: "workspaceWrite", writableRoots: [], networkAccess: false, excludeTmpdirEnvVar: false, excludeSlashTmp: false },
    ]);

    // As Codex, a client without the experimental API hears none of it.
    const plain = await launch([{ items: [{ type: "message", text: "Hi." }] }]);
    const plainThread = await startThread(plain.server);
    await runTurn(plain.server, plainThread, "Hi.", { model: "gpt-5.5-mini" });
    expect(plain.server.messages.filter((m) => m.method === "thread/settings/updated")).toEqual([]);
  });

  it("deletes a thread for good with thread/delete and tells its subscribers", async () => {
    const server = ServerProcess.start();
    await server.initialize();
    const started = (await server.request("thread/start", {})).result.thread;
    expect(existsSync(started.path)).toBe(true);
    expect((await server.request("thread/delete", { threadId: started.id })).result).toEqual({});
    expect((await server.waitFor((m) => m.method === "thread/deleted")).params).toEqual({ threadId: started.id });
    expect(existsSync(started.path)).toBe(false);
    expect((await server.request("thread/read", { threadId: started.id })).error.message).toBe(`thread not found: ${started.id}`);
    expect((await server.request("thread/list", {})).result.data).toEqual([]);
    expect((await server.request("thread/loaded/list", {})).result.data).toEqual([]);
    expect((await server.request("thread/delete", { threadId: started.id })).error.message).toBe(`no rollout found for thread id ${started.id}`);
    await server.closeStdin();
    // The index was rewritten without it: a restarted server does not list it either.
    const again = ServerProcess.start({ home: server.home });
    await again.initialize();
    expect((await again.request("thread/list", {})).result.data).toEqual([]);
    await again.closeStdin();
  });

  it("keeps threads in sections: create, list, rename, move in and out, delete; they survive a restart", async () => {
    const server = ServerProcess.start();
    await server.initialize();
    const ok = async (method: string, params: object) => {
      const response = await server.request(method, params);
      expect(response.error, method).toBeUndefined();
      return response.result;
    };
    const work = (await ok("threadSection/create", { name: "Work", appearance: { color: "blue", icon: null } })).section;
    const later = (await ok("threadSection/create", { name: "Later" })).section;
    expect(work).toEqual({ id: expect.stringMatching(/-/), name: "Work", appearance: { color: "blue", icon: null } });
    expect((await ok("threadSection/list", {})).data.map((section: any) => section.name)).toEqual(["Work", "Later"]);
    const a = (await ok("thread/start", {})).thread.id;
    const b = (await ok("thread/start", {})).thread.id;
    expect(await ok("thread/section/move", { threadId: a, sectionId: work.id })).toEqual({});
    expect((await server.waitFor((m) => m.method === "thread/section/changed")).params).toEqual({ threadId: a, sectionId: work.id });
    await ok("thread/section/move", { threadId: b, sectionId: work.id, beforeThreadId: a });
    const read = (await ok("thread/read", { threadId: a })).thread;
    expect(read.section).toEqual(work);
    expect(read.sectionEnteredAt).toEqual(expect.any(Number));
    expect((await ok("threadSection/update", { sectionId: work.id, name: "Job" })).section).toEqual({ ...work, name: "Job" });
    expect((await server.request("thread/section/move", { threadId: a, sectionId: "nope" })).error.message).toBe("no thread section nope");
    await ok("thread/section/move", { threadId: b, sectionId: null });
    expect((await ok("thread/read", { threadId: b })).thread.section).toBeNull();
    await ok("threadSection/delete", { sectionId: later.id });
    await server.closeStdin();

    const again = ServerProcess.start({ home: server.home });
    await again.initialize();
    const listed = (await again.request("threadSection/list", {})).result.data;
    expect(listed).toEqual([{ ...work, name: "Job" }]);
    const threads = (await again.request("thread/list", {})).result.data;
    expect(threads.find((thread: any) => thread.id === a).section).toEqual({ ...work, name: "Job" });
    await again.request("threadSection/delete", { sectionId: work.id });
    expect((await again.request("thread/read", { threadId: a })).result.thread.section).toBeNull();
    await again.closeStdin();
  });

  it("lists the permission profiles Codex knows", async () => {
    const server = ServerProcess.start();
    await server.initialize();
    const listed = (await server.request("permissionProfile/list", {})).result;
    expect(listed.data.map((profile: any) => [profile.id, profile.allowed])).toEqual([
      [":read-only", true],
      [":workspace", true],
      [":danger-full-access", true],
    ]);
    expect(listed.nextCursor).toBeNull();
    const page = (await server.request("permissionProfile/list", { limit: 2 })).result;
    expect(page.data).toHaveLength(2);
    expect((await server.request("permissionProfile/list", { cursor: page.nextCursor })).result.data.map((profile: any) => profile.id)).toEqual([":danger-full-access"]);
    await server.closeStdin();
  });

  it("takes a permission profile where Codex's experimental API does: thread/start, thread/resume, turn/start, command/exec", async () => {
    const cwd = tempDir("aas-profiles-");
    const plain = ServerProcess.start();
    await plain.initialize();
    expect((await plain.request("thread/start", { permissions: ":workspace" })).error).toEqual({ code: -32600, message: "thread/start.permissions requires experimentalApi capability" });
    expect((await plain.request("command/exec", { command: ["true"], permissionProfile: ":read-only" })).error.message).toBe("command/exec.permissionProfile requires experimentalApi capability");
    await plain.closeStdin();

    const server = ServerProcess.start({ cwd });
    await server.initialize({ experimentalApi: true });
    const started = (await server.request("thread/start", { cwd, permissions: ":workspace" })).result;
    expect(started.sandbox).toMatchObject({ type: "workspaceWrite" });
    const both = (await server.request("thread/start", { permissions: ":workspace", sandbox: "read-only" })).error;
    expect(both).toMatchObject({ code: -32602, message: expect.stringContaining("params.permissions: `permissions` cannot be combined with `sandbox`") });
    expect((await server.request("thread/start", { permissions: ":custom" })).error).toMatchObject({ code: -32602, message: expect.stringContaining("params.permissions") });
    const threadId = started.thread.id;
    expect((await server.request("thread/resume", { threadId, permissions: ":danger-full-access" })).result.sandbox).toEqual({ type: "dangerFullAccess" });
    const turnBoth = await server.request("turn/start", { threadId, input: [], permissions: ":read-only", sandboxPolicy: { type: "dangerFullAccess" } });
    expect(turnBoth.error.message).toContain("`permissions` cannot be combined with `sandboxPolicy`");
    // command/exec under :read-only: the sandbox refuses the write (without bubblewrap it refuses to run at all).
    const refused = await server.request("command/exec", { command: ["touch", path.join(cwd, "x")], cwd, permissionProfile: ":read-only" });
    if (bwrapAvailable) expect(refused.result.exitCode).not.toBe(0);
    else expect(refused.error.message).toContain("The sandbox is unavailable");
    expect(existsSync(path.join(cwd, "x"))).toBe(false);
    const written = await server.request("command/exec", { command: ["touch", path.join(cwd, "y")], cwd, permissionProfile: ":workspace" });
    if (bwrapAvailable) expect(written.result.exitCode).toBe(0);
    else expect(written.error.message).toContain("The sandbox is unavailable");
    await server.closeStdin();
  });
});
