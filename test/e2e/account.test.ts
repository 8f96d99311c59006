import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { launch, runTurn, startThread } from "../support/turnHarness.js";

describe("account", () => {
  it("logs in with an API key (stored as Codex stores it) that turns then use, and logs out", async () => {
    const { server, mock } = await launch([{ items: [{ type: "message", text: "Hello." }] }], {
      args: ["-c", `model_providers.mock.env_key="OPENAI_API_KEY"`],
    });
    expect((await server.request("account/read", {})).result).toEqual({ account: null, userId: null, requiresOpenaiAuth: false, workspaceRouting: null });
    // Without a key, a turn fails and says which variable to set.
    const threadId = await startThread(server);
    const failed = await runTurn(server, threadId, "Hi.");
    expect(failed.completed.params.turn.status).toBe("failed");
    expect(failed.completed.params.turn.error.message).toContain("OPENAI_API_KEY");

    expect((await server.request("account/login/start", { type: "apiKey", apiKey: "sk-test-123" })).result).toEqual({ type: "apiKey" });
    expect((await server.waitFor((m) => m.method === "account/login/completed")).params).toEqual({ loginId: null, success: true, error: null });
    expect((await server.waitFor((m) => m.method === "account/updated")).params).toEqual({ authMode: "apikey", planType: null });
    const file = path.join(server.home, "auth.json");
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ auth_mode: "apikey", OPENAI_API_KEY: "sk-test-123" });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect((await server.request("account/read", {})).result.account).toEqual({ type: "apiKey" });

    const ok = await runTurn(server, threadId, "Hi again.");
    expect(ok.completed.params.turn.status).toBe("completed");
    expect(mock.requests.at(-1)!.headers.authorization).toBe("Bearer sk-test-123");

    // As Codex: rate limits need a ChatGPT sign-in, which an API key is not.
    expect((await server.request("account/rateLimits/read", {})).error).toEqual({ code: -32600, message: "chatgpt authentication required to read rate limits" });
    expect((await server.request("account/login/cancel", { loginId: "x" })).result).toEqual({ status: "notFound" });
    const chatgpt = await server.request("account/login/start", { type: "chatgpt" });
    expect(chatgpt.error.message).toContain("requires a ChatGPT account");
    expect((await server.request("account/logout", {})).result).toEqual({});
    await server.waitFor((m) => m.method === "account/updated" && m.params.authMode === null);
    expect((await server.request("account/read", {})).result.account).toBeNull();
    expect((await server.request("account/rateLimits/read", {})).error).toEqual({ code: -32600, message: "codex account authentication required to read rate limits" });
  });
});
