import { describe, expect, it } from "vitest";
import type { ServerProcess } from "../support/serverProcess.js";
import { launch, runTurn, startThread } from "../support/turnHarness.js";

/** A model answer of `count` messages, each its own agentMessage item. */
function answer(prefix: string, count: number) {
  return { items: Array.from({ length: count }, (_, index) => ({ type: "message" as const, text: `${prefix}${index}` })) };
}

function ok(server: ServerProcess) {
  return async (method: string, params: object) => {
    const response = await server.request(method, params);
    expect(response.error, `${method} ${JSON.stringify(params)}`).toBeUndefined();
    return response.result;
  };
}

/** Follows `nextCursor` from the first page, collecting every page's data. */
async function allPages(call: (method: string, params: object) => Promise<any>, method: string, params: object): Promise<{ data: any[]; pages: number }> {
  const data: any[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const page = await call(method, { ...params, cursor });
    data.push(...page.data);
    pages++;
    cursor = page.nextCursor;
  } while (cursor !== null && pages < 50);
  return { data, pages };
}

const texts = (entries: any[]) => entries.map((entry) => entry.item.text ?? entry.item.content?.[0]?.text);

describe("history paging as Codex 0.169", () => {
  it("gives codex-acp the whole history after session/load: resume with excludeTurns, the newest item from itemsBackwardsCursor, then pages of 100", async () => {
    // Two turns of 1 user message and 60 answers each: 122 items, more than one page of 100.
    const first = await launch([answer("a", 60), answer("b", 60)]);
    const threadId = await startThread(first.server);
    const one = await runTurn(first.server, threadId, "First.");
    const two = await runTurn(first.server, threadId, "Second.");
    await first.server.closeStdin();

    const { server } = await launch([], { home: first.server.home });
    const call = ok(server);
    const resumed = await call("thread/resume", { threadId, excludeTurns: true });
    expect(resumed.thread).toMatchObject({ historyMode: "paginated", turns: [] });
    const keys = Object.keys(resumed);
    expect(keys.slice(keys.indexOf("reasoningEffort"))).toEqual([
      "reasoningEffort",
      "collaborationMode",
      "multiAgentMode",
      "initialTurnsPage",
      "turnsBackwardsCursor",
      "itemsBackwardsCursor",
    ]);
    expect(resumed.collaborationMode).toEqual({ mode: "default", settings: { model: "gpt-5.5", reasoning_effort: null, developer_instructions: null } });
    expect(resumed.initialTurnsPage).toBeNull();
    // Codex's cursor text, key for key.
    expect(resumed.itemsBackwardsCursor).toBe(`{"requestedThreadId":"${threadId}","rolloutOrdinal":121,"includeAnchor":true,"scope":{"kind":"itemsByCreatedAtOrdinal"}}`);
    expect(resumed.turnsBackwardsCursor).toBe(`{"requestedThreadId":"${threadId}","rolloutOrdinal":1,"includeAnchor":true,"scope":{"kind":"turns"}}`);

    const newest = await call("thread/items/list", { threadId, turnId: null, cursor: resumed.itemsBackwardsCursor, limit: 1, sortDirection: "desc" });
    expect(newest.data).toHaveLength(1);
    expect(newest.data[0]).toMatchObject({ turnId: two.turnId, item: { type: "agentMessage", text: "b59" } });
    const lastItemId = newest.data[0].item.id;

    const pages: any[] = [];
    let cursor: string | null = null;
    do {
      const page = await call("thread/items/list", { threadId, turnId: null, cursor, limit: 100, sortDirection: "asc" });
      pages.push(page);
      if (page.data.some((entry: any) => entry.item.id === lastItemId)) break;
      cursor = page.nextCursor;
    } while (cursor !== null);
    expect(pages.map((page) => page.data.length)).toEqual([100, 22]);
    expect(pages[1].nextCursor).toBeNull();
    const items = pages.flatMap((page) => page.data);
    expect(items.at(-1).item.id).toBe(lastItemId);
    expect(texts(items.slice(0, 3))).toEqual(["First.", "a0", "a1"]);
    expect(items.filter((entry) => entry.turnId === one.turnId)).toHaveLength(61);
    expect(new Set(items.map((entry) => entry.item.id)).size).toBe(122);
  });

  it("pages items 25 at a time by default, both ways, with backwards cursors that include their row and a 1..100 limit", async () => {
    const { server } = await launch([answer("a", 14), answer("b", 14)]);
    const call = ok(server);
    const threadId = await startThread(server);
    const one = await runTurn(server, threadId, "First.");
    await runTurn(server, threadId, "Second.");
    const expected = ["First.", ...Array.from({ length: 14 }, (_, i) => `a${i}`), "Second.", ...Array.from({ length: 14 }, (_, i) => `b${i}`)];

    const firstPage = await call("thread/items/list", { threadId });
    expect(firstPage.data).toHaveLength(25);
    expect(JSON.parse(firstPage.nextCursor)).toEqual({ requestedThreadId: threadId, rolloutOrdinal: 24, includeAnchor: false, scope: { kind: "itemsByCreatedAtOrdinal" } });
    expect(JSON.parse(firstPage.backwardsCursor)).toEqual({ requestedThreadId: threadId, rolloutOrdinal: 0, includeAnchor: true, scope: { kind: "itemsByCreatedAtOrdinal" } });
    const ascending = await allPages(call, "thread/items/list", { threadId });
    expect(ascending.pages).toBe(2);
    expect(texts(ascending.data)).toEqual(expected);
    const descending = await allPages(call, "thread/items/list", { threadId, sortDirection: "desc" });
    expect(texts(descending.data)).toEqual([...expected].reverse());

    // The second ascending page's backwardsCursor, read descending, starts at that page's first item.
    const second = await call("thread/items/list", { threadId, cursor: firstPage.nextCursor });
    expect(texts(second.data)).toEqual(expected.slice(25));
    expect(second.nextCursor).toBeNull();
    const back = await call("thread/items/list", { threadId, cursor: second.backwardsCursor, sortDirection: "desc", limit: 3 });
    expect(texts(back.data)).toEqual([expected[25], expected[24], expected[23]]);

    expect((await call("thread/items/list", { threadId, limit: 0 })).data).toHaveLength(1);
    expect((await call("thread/items/list", { threadId, limit: 1000 })).data).toHaveLength(30);

    // One turn: ordinals stay thread-wide, so its cursors and the thread's mean the same rows.
    const ofTurn = await call("thread/items/list", { threadId, turnId: one.turnId, limit: 10 });
    expect(texts(ofTurn.data)).toEqual(expected.slice(0, 10));
    const rest = await call("thread/items/list", { threadId, turnId: one.turnId, cursor: ofTurn.nextCursor });
    expect(texts(rest.data)).toEqual(expected.slice(10, 15));
    expect(rest.nextCursor).toBeNull();
    const afterAnchor = await call("thread/items/list", { threadId, turnId: one.turnId, cursor: { type: "item", itemId: ofTurn.data[2].item.id }, limit: 2 });
    expect(texts(afterAnchor.data)).toEqual(["a2", "a3"]);
    const beforeAnchor = await call("thread/items/list", { threadId, turnId: one.turnId, cursor: { type: "item", itemId: ofTurn.data[2].item.id }, sortDirection: "desc" });
    expect(texts(beforeAnchor.data)).toEqual(["a0", "First."]);
    expect(await call("thread/items/list", { threadId, turnId: "nope" })).toEqual({ data: [], nextCursor: null, backwardsCursor: null });
  });

  it("pages turns newest first with turnsBackwardsCursor, and returns an initial turns page on resume to experimental clients", async () => {
    const { server } = await launch([answer("a", 1), answer("b", 2), answer("c", 1)], { capabilities: { experimentalApi: true } });
    const call = ok(server);
    const threadId = await startThread(server);
    const ids: string[] = [];
    for (const text of ["One.", "Two.", "Three."]) ids.push((await runTurn(server, threadId, text)).turnId);

    const resumed = await call("thread/resume", { threadId, excludeTurns: true, initialTurnsPage: { limit: 2 } });
    expect(resumed.initialTurnsPage.data.map((turn: any) => turn.id)).toEqual([ids[2], ids[1]]);
    expect(resumed.initialTurnsPage.data[1]).toMatchObject({ itemsView: "summary", items: [{ type: "userMessage" }, { type: "agentMessage", text: "b1" }] });
    const older = await call("thread/turns/list", { threadId, cursor: resumed.initialTurnsPage.nextCursor });
    expect(older.data.map((turn: any) => turn.id)).toEqual([ids[0]]);
    expect(older.nextCursor).toBeNull();
    const full = await call("thread/resume", { threadId, excludeTurns: true, initialTurnsPage: { limit: 1, sortDirection: "asc", itemsView: "full" } });
    expect(full.initialTurnsPage.data).toMatchObject([{ id: ids[0], itemsView: "full" }]);

    const newest = await call("thread/turns/list", { threadId, cursor: resumed.turnsBackwardsCursor, limit: 1, sortDirection: "desc" });
    expect(newest.data.map((turn: any) => turn.id)).toEqual([ids[2]]);
    const all = await call("thread/turns/list", { threadId });
    expect(all.data.map((turn: any) => turn.id)).toEqual([...ids].reverse());
    expect(JSON.parse(all.backwardsCursor)).toEqual({ requestedThreadId: threadId, rolloutOrdinal: 2, includeAnchor: true, scope: { kind: "turns" } });
    const ascending = await call("thread/turns/list", { threadId, sortDirection: "asc", limit: 2, itemsView: "notLoaded" });
    expect(ascending.data.map((turn: any) => [turn.id, turn.items])).toEqual([[ids[0], []], [ids[1], []]]);
    const back = await call("thread/turns/list", { threadId, cursor: ascending.backwardsCursor, sortDirection: "desc" });
    expect(back.data.map((turn: any) => turn.id)).toEqual([ids[0]]);

    const plain = await launch([]);
    const refused = await plain.server.request("thread/resume", { threadId: "01a00000-0000-7000-8000-000000000000", initialTurnsPage: { limit: 1 } });
    expect(refused.error).toEqual({ code: -32600, message: "thread/resume.initialTurnsPage requires experimentalApi capability" });
  });

  it("refuses cursors it did not hand out for this thread and scope, and item anchors outside the turn", async () => {
    const { server } = await launch([answer("a", 1), answer("b", 1)]);
    const call = ok(server);
    const threadId = await startThread(server);
    const other = await startThread(server);
    const { turnId } = await runTurn(server, threadId, "One.");
    await runTurn(server, other, "Elsewhere.");
    const resumed = await call("thread/resume", { threadId, excludeTurns: true });
    const expectInvalid = async (method: string, cursor: string) => {
      expect((await server.request(method, { threadId, cursor })).error).toEqual({ code: -32600, message: `invalid cursor: ${cursor}` });
    };
    const cursorOf = (fields: object) => JSON.stringify({ requestedThreadId: threadId, rolloutOrdinal: 0, includeAnchor: true, scope: { kind: "turns" }, ...fields });
    await expectInvalid("thread/items/list", "bogus");
    await expectInvalid("thread/turns/list", "bogus");
    await expectInvalid("thread/items/list", resumed.turnsBackwardsCursor);
    await expectInvalid("thread/turns/list", resumed.itemsBackwardsCursor);
    await expectInvalid("thread/turns/list", cursorOf({ requestedThreadId: other }));
    await expectInvalid("thread/turns/list", cursorOf({ rolloutOrdinal: 1 }));
    await expectInvalid("thread/turns/list", cursorOf({ rolloutOrdinal: -1 }));
    await expectInvalid("thread/turns/list", cursorOf({ includeAnchor: "yes" }));
    await expectInvalid("thread/turns/list", "[0]");
    expect((await call("thread/turns/list", { threadId, cursor: cursorOf({}) })).data).toHaveLength(1);

    const anchor = { type: "item", itemId: "nope" };
    expect((await server.request("thread/items/list", { threadId, cursor: anchor })).error).toEqual({ code: -32600, message: "turnId is required when cursor is an item anchor" });
    expect((await server.request("thread/items/list", { threadId, turnId, cursor: anchor })).error).toEqual({
      code: -32600,
      message: "cursor.itemId does not identify an item in the requested history scope",
    });
  });
});
