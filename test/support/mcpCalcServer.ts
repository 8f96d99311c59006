import { writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { tempDir } from "./turnHarness.js";

// The installed SDK's modules by URL: the server script is written to a temporary directory.
const sdk = (file: string) => pathToFileURL(path.resolve("node_modules/@modelcontextprotocol/sdk/dist/esm", file)).href;

/**
 * A stdio MCP server with `add {a, b}` and `slow` (answers after 30 s unless cancelled). Given
 * `--stubborn` it ignores stdin EOF and SIGTERM, as a badly behaved server would.
 */
export function mcpServerScript(): string {
  const file = path.join(tempDir("aas-mcp-"), "calc-server.mjs");
  writeFileSync(
    file,
    `import { McpServer } from ${JSON.stringify(sdk("server/mcp.js"))};
import { StdioServerTransport } from ${JSON.stringify(sdk("server/stdio.js"))};
import { z } from ${JSON.stringify(pathToFileURL(path.resolve("node_modules/zod/index.js")).href)};
const server = new McpServer({ name: "calc", version: "1.2.3" });
server.registerTool("add", { description: "Adds two numbers.", inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => ({
  content: [{ type: "text", text: "The sum is " + (a + b) }],
}));
server.registerTool("slow", { description: "Takes its time." }, async (extra) => {
  await new Promise((resolve) => {
    const timer = setTimeout(resolve, 30000);
    extra.signal.addEventListener("abort", () => { clearTimeout(timer); resolve(); });
  });
  return { content: [{ type: "text", text: "finally" }] };
});
server.registerTool("env", { description: "Reads a variable of its environment.", inputSchema: { name: z.string() } }, async ({ name }) => ({
  content: [{ type: "text", text: process.env[name] ?? "(unset)" }],
}));
server.registerResource("readme", "memo://readme", { mimeType: "text/plain" }, async (uri) => ({ contents: [{ uri: uri.href, mimeType: "text/plain", text: "calc readme" }] }));
if (process.argv.includes("--stubborn")) {
  process.on("SIGTERM", () => undefined);
  setInterval(() => undefined, 1000);
}
console.error("calc server up");
await server.connect(new StdioServerTransport());
`,
  );
  return file;
}

/** `-c` flags configuring MCP server `name` as a TOML inline table. */
export function mcpArgs(name: string, table: string): string[] {
  return ["-c", `mcp_servers.${name}={${table}}`];
}

/** A stdio server's TOML table: this Node running `script` (with `extra` arguments, TOML-quoted and comma-led). */
export function stdioTable(script: string, extra = ""): string {
  return `command=${JSON.stringify(process.execPath)},args=[${JSON.stringify(script)}${extra}]`;
}

