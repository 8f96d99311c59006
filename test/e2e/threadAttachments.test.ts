import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ServerProcess } from "../support/serverProcess.js";

/** Sends a request and returns its result, failing the test on an error. */
function okOf(server: ServerProcess) {
  return async (method: string, params: object) => {
    const response = await server.request(method, params);
    expect(response.error, method).toBeUndefined();
    return response.result;
  };
}

describe("thread attachments", () => {
  it("adds (created, then existing), lists, finds owners, removes; announces each change; survives a restart", async () => {
    const server = ServerProcess.start();
    await server.initialize();
    const ok = okOf(server);
    const a = (await ok("thread/start", {})).thread.id;
    const b = (await ok("thread/start", {})).thread.id;

    const added = await ok("thread/attachment/add", { threadId: a, attachmentType: "ticket", identityKey: "JIRA-1", payload: { title: "Fix it" } });
    expect(added).toEqual({
      outcome: "created",
      attachment: { id: expect.stringMatching(/-/), attachmentType: "ticket", identityKey: "JIRA-1", payload: { title: "Fix it" }, createdAt: expect.any(Number) },
    });
    expect((await server.waitFor((m) => m.method === "thread/attachment/updated")).params).toEqual({
      threadId: a,
      attachmentId: added.attachment.id,
      attachmentType: "ticket",
      identityKey: "JIRA-1",
      operation: "created",
    });
    // The same identity again: the stored attachment, its payload unchanged, and no notification.
    const again = await ok("thread/attachment/add", { threadId: a, attachmentType: "ticket", identityKey: "JIRA-1", payload: { title: "Other" } });
    expect(again).toEqual({ outcome: "existing", attachment: added.attachment });
    // A null payload is a payload.
    await ok("thread/attachment/add", { threadId: a, attachmentType: "ticket", identityKey: "JIRA-2", payload: null });
    await ok("thread/attachment/add", { threadId: b, attachmentType: "ticket", identityKey: "JIRA-1", payload: 1 });
    expect(server.messages.filter((m) => m.method === "thread/attachment/updated")).toHaveLength(3);

    const firstPage = await ok("thread/attachment/list", { threadId: a, limit: 1 });
    expect(firstPage.data.map((x: any) => x.identityKey)).toEqual(["JIRA-1"]);
    const secondPage = await ok("thread/attachment/list", { threadId: a, limit: 1, cursor: firstPage.nextCursor });
    expect(secondPage).toEqual({ data: [expect.objectContaining({ identityKey: "JIRA-2", payload: null })], nextCursor: null });

    await ok("thread/archive", { threadId: b });
    expect((await ok("thread/attachmentOwner/list", { attachmentType: "ticket", identityKey: "JIRA-1" })).data).toEqual([
      { threadId: a, archived: false },
      { threadId: b, archived: true },
    ]);
    expect((await ok("thread/attachmentOwner/list", { attachmentType: "ticket", identityKey: "JIRA-1", archived: false })).data).toEqual([{ threadId: a, archived: false }]);
    expect((await ok("thread/attachmentOwner/list", { attachmentType: "ticket", identityKey: "nobody" })).data).toEqual([]);

    expect(await ok("thread/attachment/remove", { threadId: a, attachmentType: "ticket", identityKey: "JIRA-2" })).toEqual({});
    expect(server.messages.filter((m) => m.method === "thread/attachment/updated").at(-1)!.params).toEqual(
      expect.objectContaining({ threadId: a, identityKey: "JIRA-2", operation: "deleted" }),
    );
    // Removing what is not there succeeds, quietly.
    expect(await ok("thread/attachment/remove", { threadId: a, attachmentType: "ticket", identityKey: "JIRA-2" })).toEqual({});
    expect(server.messages.filter((m) => m.method === "thread/attachment/updated")).toHaveLength(4);
    await server.closeStdin();

    const restarted = ServerProcess.start({ home: server.home });
    await restarted.initialize();
    expect((await okOf(restarted)("thread/attachment/list", { threadId: a })).data).toEqual([added.attachment]);
    // A deleted thread's attachments go with it.
    await okOf(restarted)("thread/delete", { threadId: a });
    expect((await okOf(restarted)("thread/attachmentOwner/list", { attachmentType: "ticket", identityKey: "JIRA-1" })).data).toEqual([{ threadId: b, archived: true }]);
    const file = JSON.parse(readFileSync(path.join(server.home, "thread_attachments.json"), "utf8"));
    expect(Object.keys(file.threads)).toEqual([b]);
    await restarted.closeStdin();
  });

  it("refuses blank or oversized identities, a missing or oversized payload, and unknown threads, with errors that say which", async () => {
    const server = ServerProcess.start();
    await server.initialize();
    const threadId = (await server.request("thread/start", {})).result.thread.id;
    const error = async (method: string, params: object) => (await server.request(method, params)).error;

    expect((await error("thread/attachment/add", { threadId, attachmentType: " ", identityKey: "k", payload: 1 })).message).toMatch(/attachmentType: must not be empty/);
    expect((await error("thread/attachment/add", { threadId, attachmentType: "t", identityKey: "k".repeat(1025), payload: 1 })).message).toMatch(/identityKey: must not exceed 1024 bytes/);
    expect((await error("thread/attachment/add", { threadId, attachmentType: "t", identityKey: "k" })).message).toMatch(/payload: missing required field/);
    expect((await error("thread/attachment/add", { threadId, attachmentType: "t", identityKey: "k", payload: "x".repeat(70_000) })).message).toMatch(/payload: must not exceed 65536 bytes/);
    expect((await error("thread/attachment/remove", { threadId, attachmentType: "", identityKey: "k" })).code).toBe(-32602);
    const unknown = "019a0000-0000-7000-8000-000000000000";
    expect((await error("thread/attachment/add", { threadId: unknown, attachmentType: "t", identityKey: "k", payload: 1 })).message).toBe(`no rollout found for thread id ${unknown}`);
    expect((await error("thread/attachment/list", { threadId: "not-a-uuid" })).message).toMatch(/invalid thread id/);
    expect((await server.request("thread/attachment/list", { threadId })).result).toEqual({ data: [], nextCursor: null });
    // Nothing was written by the refused requests.
    expect(server.messages.some((m) => m.method === "thread/attachment/updated")).toBe(false);
    await server.closeStdin();
  });

  it("caps a thread at 256 attachments", async () => {
    const server = ServerProcess.start();
    await server.initialize();
    const threadId = (await server.request("thread/start", {})).result.thread.id;
    for (let index = 0; index < 256; index += 1) {
      expect((await server.request("thread/attachment/add", { threadId, attachmentType: "t", identityKey: `k${index}`, payload: index })).error).toBeUndefined();
    }
    expect((await server.request("thread/attachment/add", { threadId, attachmentType: "t", identityKey: "one-more", payload: 0 })).error.message).toBe(
      `thread ${threadId} already has 256 attachments; remove one first`,
    );
    // An existing identity is still found.
    expect((await server.request("thread/attachment/add", { threadId, attachmentType: "t", identityKey: "k0", payload: 0 })).result.outcome).toBe("existing");
    await server.closeStdin();
  });
});
