import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { isSdkMissing, loadMcpSdk, MCP_SDK_MISSING } from "../../src/agent/mcp/mcpSdk.js";

class Refused extends Error {}

/** The error Node gives an `import()` of a package no node_modules on the way up holds. */
function notFound(pkg: string, from: string): Error {
  return Object.assign(new Error(`Cannot find package '${pkg}' imported from ${from}`), { code: "ERR_MODULE_NOT_FOUND" });
}

describe("loadMcpSdk", () => {
  it("loads the SDK when it is installed (a dev dependency here)", async () => {
    const { Client } = await loadMcpSdk(() => import("@modelcontextprotocol/sdk/client/index.js"), (message) => new Refused(message));
    expect(typeof Client).toBe("function");
  });

  it("turns the SDK's absence into the caller's error, saying how to install it", async () => {
    const cause = notFound("@modelcontextprotocol/sdk", "/usr/lib/node_modules/agent-app-server/dist/chunks/serve.js");
    const failure = loadMcpSdk(() => Promise.reject(cause), (message) => new Refused(message));
    await expect(failure).rejects.toThrow(Refused);
    await expect(failure).rejects.toThrow("MCP servers need @modelcontextprotocol/sdk: npm install @modelcontextprotocol/sdk");
    await expect(failure).rejects.toMatchObject({ message: MCP_SDK_MISSING, cause });
  });

  it("recognizes Node's own error for the SDK not installed", () => {
    // A module in a directory with no node_modules above it that holds the SDK.
    const dir = mkdtempSync(path.join(os.tmpdir(), "aas-nosdk-"));
    writeFileSync(
      path.join(dir, "probe.mjs"),
      `import("@modelcontextprotocol/sdk/client/index.js").then(() => console.log("null"), (e) => console.log(JSON.stringify({ code: e.code, message: e.message })));`,
    );
    try {
      const error = JSON.parse(execFileSync(process.execPath, [path.join(dir, "probe.mjs")], { encoding: "utf8" }));
      expect(error).toMatchObject({ code: "ERR_MODULE_NOT_FOUND" });
      expect(isSdkMissing(error)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("passes on other failures: a dependency of the SDK missing is not the SDK missing", async () => {
    const dependency = notFound("eventsource", "/app/node_modules/@modelcontextprotocol/sdk/dist/esm/client/sse.js");
    await expect(loadMcpSdk(() => Promise.reject(dependency), (message) => new Refused(message))).rejects.toBe(dependency);
    const other = new TypeError("boom");
    await expect(loadMcpSdk(() => Promise.reject(other), (message) => new Refused(message))).rejects.toBe(other);
    expect(isSdkMissing(undefined)).toBe(false);
  });
});
