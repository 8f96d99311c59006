import { statSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startOAuthMcpServer, type OAuthMcpServer } from "../support/oauthMcpServer.js";
import { ServerProcess } from "../support/serverProcess.js";
import { launch, startThread } from "../support/turnHarness.js";

const started: OAuthMcpServer[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((server) => server.close()));
});

async function oauthServer(): Promise<OAuthMcpServer> {
  const server = await startOAuthMcpServer();
  started.push(server);
  return server;
}

function status(server: ServerProcess, name: string, wanted: string): Promise<any> {
  return server.waitFor((m) => m.method === "mcpServer/startupStatus/updated" && m.params.name === name && m.params.status === wanted, `${name} ${wanted}`);
}

/** What a browser does with the authorization URL: follow the authorization server's redirect to our callback. */
async function browse(authorizationUrl: string): Promise<{ status: number; text: string }> {
  const authorize = await fetch(authorizationUrl, { redirect: "manual" });
  expect(authorize.status).toBe(302);
  const callback = await fetch(authorize.headers.get("location")!);
  return { status: callback.status, text: await callback.text() };
}

describe("mcpServer/oauth/login", () => {
  it("logs in to an HTTP server that wants OAuth: authorization URL, browser callback, tokens stored, server restarted; the login survives a restart", async () => {
    const secure = await oauthServer();
    const args = ["-c", `mcp_servers.secure={url="${secure.url}"}`];
    const { server } = await launch([], { args });
    const failed = await status(server, "secure", "failed");
    expect(failed.params.error).toContain("the server requires an OAuth login: call mcpServer/oauth/login");
    expect((await server.request("mcpServerStatus/list", {})).result.data[0].authStatus).toBe("notLoggedIn");

    const login = (await server.request("mcpServer/oauth/login", { name: "secure", scopes: ["mcp:tools"] })).result;
    expect(login.loginId).toEqual(expect.any(String));
    const authorizationUrl = new URL(login.authorizationUrl);
    expect(authorizationUrl.origin + authorizationUrl.pathname).toBe(new URL("/authorize", secure.url).toString());
    expect(authorizationUrl.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authorizationUrl.searchParams.get("redirect_uri")).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(authorizationUrl.searchParams.get("scope")).toBe("mcp:tools");

    expect(await browse(login.authorizationUrl)).toEqual({ status: 200, text: "Logged in to MCP server secure. You can close this window." });
    const completed = await server.waitFor((m) => m.method === "mcpServer/oauthLogin/completed");
    expect(completed.params).toEqual({ name: "secure", success: true, error: null, loginId: login.loginId, threadId: null });
    await status(server, "secure", "ready");
    const threadId = await startThread(server);
    const called = await server.request("mcpServer/tool/call", { threadId, server: "secure", tool: "whoami" });
    expect(called.result.content).toEqual([{ type: "text", text: "a logged-in client" }]);
    expect((await server.request("mcpServerStatus/list", {})).result.data[0]).toMatchObject({ authStatus: "oAuth", runtimeStatus: "connected" });
    expect(secure.log).toEqual(["register client-1", "token authorization_code"]);
    // The credentials are the owner's alone.
    const file = path.join(server.home, "mcp_oauth_credentials.json");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, "utf8")).servers.secure.url).toBe(secure.url);
    await server.closeStdin();

    const again = ServerProcess.start({ home: server.home, args: ["app-server", ...args] });
    await again.initialize();
    await status(again, "secure", "ready");
    await again.closeStdin();
  });

  it("reports a refused authorization, a timeout, and refuses servers it cannot log in to", async () => {
    const secure = await oauthServer();
    const plain = await oauthServer();
    const { server } = await launch([], {
      args: [
        "-c",
        `mcp_servers.secure={url="${secure.url}"}`,
        "-c",
        `mcp_servers.tokened={url="${plain.url}",bearer_token_env_var="AAS_TEST_TOKEN"}`,
        "-c",
        `mcp_servers.local={command="true",enabled=false}`,
        "-c",
        `mcp_servers.nowhere={url="http://127.0.0.1:9/mcp",enabled=false}`,
      ],
    });
    const error = async (params: object) => (await server.request("mcpServer/oauth/login", params)).error;
    expect(await error({ name: "missing" })).toMatchObject({ code: -32600, message: "no MCP server named `missing` is configured" });
    expect((await error({ name: "local" })).message).toBe("MCP server `local` is a stdio server: OAuth login is for streamable HTTP servers");
    expect((await error({ name: "tokened" })).message).toBe("MCP server `tokened` signs in with bearer_token_env_var; remove it to use an OAuth login");
    expect((await error({ name: "nowhere" })).message).toMatch(/^MCP server `nowhere` does not offer an OAuth login this server can use: /);

    secure.deny = true;
    const denied = (await server.request("mcpServer/oauth/login", { name: "secure", threadId: null })).result;
    const page = await browse(denied.authorizationUrl);
    expect(page.status).toBe(400);
    expect(page.text).toContain("access_denied: The user said no");
    const refused = await server.waitFor((m) => m.method === "mcpServer/oauthLogin/completed" && m.params.loginId === denied.loginId);
    expect(refused.params).toMatchObject({ success: false, error: "authorization failed: access_denied: The user said no" });

    const waiting = (await server.request("mcpServer/oauth/login", { name: "secure", timeoutSecs: 1 })).result;
    const timedOut = await server.waitFor((m) => m.method === "mcpServer/oauthLogin/completed" && m.params.loginId === waiting.loginId);
    expect(timedOut.params).toMatchObject({ success: false, error: "no authorization arrived within 1 s" });
    // The callback server is gone with the login.
    await expect(fetch(new URL(waiting.authorizationUrl).searchParams.get("redirect_uri")!)).rejects.toThrow();
  });
});
