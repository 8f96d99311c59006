import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { MCP_SDK_MISSING } from "../../src/agent/mcp/mcpSdk.js";
import { launch, runTurn, startThread } from "../support/turnHarness.js";

// The server as installed without @modelcontextprotocol/sdk (an optional peer dependency): the
// package test (scripts/test-package.mjs) checks the same against a real install without it.
const hideSdk = pathToFileURL(path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../support/hideMcpSdk.mjs")).href;
const env = { NODE_OPTIONS: [process.env.NODE_OPTIONS, `--import=${hideSdk}`].filter(Boolean).join(" ") };

describe("MCP without the MCP SDK installed", () => {
  it("fails each configured server with how to install the SDK; the rest of the server works", async () => {
    const { server } = await launch([{ items: [{ type: "message", text: "Hi." }] }], {
      env,
      args: ["-c", `mcp_servers.calc={command=${JSON.stringify(process.execPath)},args=["-e","0"]}`, "-c", `mcp_servers.remote={url="http://127.0.0.1:9/mcp"}`],
    });
    for (const name of ["calc", "remote"]) {
      const failed = await server.waitFor(
        (m) => m.method === "mcpServer/startupStatus/updated" && m.params.name === name && m.params.status === "failed",
        `${name} failed`,
      );
      expect(failed.params.error).toBe(`MCP server \`${name}\` failed: ${MCP_SDK_MISSING}`);
    }
    expect(MCP_SDK_MISSING).toBe("MCP servers need @modelcontextprotocol/sdk: npm install @modelcontextprotocol/sdk");

    const listed = await server.request("mcpServerStatus/list", {});
    expect(listed.result.data.map((status: any) => [status.name, status.runtimeStatus])).toEqual([
      ["calc", "failed"],
      ["remote", "failed"],
    ]);
    const login = await server.request("mcpServer/oauth/login", { name: "remote" });
    expect(login.error).toEqual({ code: -32600, message: MCP_SDK_MISSING });

    const threadId = await startThread(server);
    const { completed } = await runTurn(server, threadId, "Hello.");
    expect(completed.params.turn.status).toBe("completed");
    // The SDK's absence is expected: a warning per server, never "failed unexpectedly".
    expect(server.stderr).not.toContain("failed unexpectedly");
  });
});
