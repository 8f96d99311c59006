import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import type { MockResponseInput } from "../../src/testing/index.js";
import { launch, startThread, tempDir } from "../support/turnHarness.js";

/** The six ways a command leaves something running, each a `sleep` of its own length (`base`+1 … `base`+6). */
function sixWays(base: number): string {
  return [
    `sleep ${base + 1} >/dev/null 2>&1 &`,
    `setsid sleep ${base + 2} >/dev/null 2>&1 &`,
    `nohup sleep ${base + 3} >/dev/null 2>&1 &`,
    `( ( sleep ${base + 4} >/dev/null 2>&1 & ) & )`,
    `setsid -f sleep ${base + 5} >/dev/null 2>&1`,
    `sleep ${base + 6} >/dev/null 2>&1 & disown`,
    // The command reports only once all six exist.
    `until [ "$(pgrep -c -f '^sleep ${String(base).slice(0, -1)}')" -ge 6 ]; do :; done; echo six-running`,
  ].join("\n");
}

/** Processes whose whole command line is `sleep <seconds>` (a shell whose script mentions it does not count). */
function sleeping(seconds: number): string[] {
  return execFileSync("ps", ["-eo", "args="], { encoding: "utf8" })
    .split("\n")
    .filter((line) => line.trim() === `sleep ${seconds}`);
}

/** The `sleep`s of {@link sixWays} still alive. */
function alive(base: number): string[] {
  return [1, 2, 3, 4, 5, 6].flatMap((offset) => sleeping(base + offset));
}

/** Waits (bounded) until none of them is left; they are SIGKILLed before the owner's end is announced, so this is only their last moment. */
async function noneLeft(base: number): Promise<string[]> {
  const deadline = Date.now() + 5_000;
  while (alive(base).length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  return alive(base);
}

const exec = (cmd: string, callId: string): MockResponseInput => ({ items: [{ type: "exec", cmd, callId, yield_time_ms: 10_000 }] });
const done: MockResponseInput = { items: [{ type: "message", text: "done" }] };

describe("no process outlives its owner (full access, no sandbox)", () => {
  it("a command's leftovers die when its turn ends", async () => {
    const { server } = await launch([exec(sixWays(7770), "c1"), done], { sandbox: "danger-full-access" });
    const threadId = await startThread(server);
    const started = await server.request("turn/start", { threadId, input: [{ type: "text", text: "go" }] });
    await server.waitFor((m) => m.method === "item/completed" && m.params.item.type === "commandExecution");
    const completed = await server.waitFor((m) => m.method === "turn/completed" && m.params.turn.id === started.result.turn.id);
    expect(completed.params.turn.status).toBe("completed");
    expect(await noneLeft(7770)).toEqual([]);
  });

  for (const ending of ["interrupt", "stdin EOF", "SIGTERM"] as const) {
    it(`a running command and its leftovers die on ${ending}`, async () => {
      const base = { interrupt: 7780, "stdin EOF": 7790, SIGTERM: 7800 }[ending];
      const { server } = await launch([exec(`${sixWays(base)}\nsleep 1000`, "c1"), done], { sandbox: "danger-full-access" });
      const threadId = await startThread(server);
      const started = await server.request("turn/start", { threadId, input: [{ type: "text", text: "go" }] });
      await server.waitFor((m) => m.method === "item/commandExecution/outputDelta" && Buffer.from(m.params.delta, "utf8").toString().includes("six-running"));
      expect(alive(base)).toHaveLength(6);
      if (ending === "interrupt") {
        await server.request("turn/interrupt", { threadId, turnId: started.result.turn.id });
        await server.waitFor((m) => m.method === "turn/completed");
      } else if (ending === "stdin EOF") {
        await server.closeStdin();
      } else {
        await server.signal("SIGTERM");
      }
      expect(await noneLeft(base)).toEqual([]);
    });
  }

  it("command/exec: leftovers die when the command exits, and a running command's when the connection closes", async () => {
    const { server } = await launch([], { sandbox: "danger-full-access" });
    const exited = await server.request("command/exec", { command: ["bash", "-c", sixWays(7810)] });
    expect(exited.result.stdout).toContain("six-running");
    expect(await noneLeft(7810)).toEqual([]);
    server.send({ id: 9001, method: "command/exec", params: { command: ["bash", "-c", `${sixWays(7820)}\nsleep 1000`], processId: "p1", streamStdoutStderr: true } });
    await server.waitFor((m) => m.method === "command/exec/outputDelta" && Buffer.from(m.params.deltaBase64, "base64").toString().includes("six-running"));
    await server.closeStdin();
    expect(await noneLeft(7820)).toEqual([]);
  });

  it("an MCP server's own children die at shutdown", async () => {
    const script = path.join(tempDir("aas-mcp-child-"), "server.mjs");
    const sdk = (file: string) => JSON.stringify(pathToFileURL(path.resolve("node_modules/@modelcontextprotocol/sdk/dist/esm", file)).href);
    writeFileSync(
      script,
      `import { spawn } from "node:child_process";
import { McpServer } from ${sdk("server/mcp.js")};
import { StdioServerTransport } from ${sdk("server/stdio.js")};
spawn("setsid", ["sleep", "7831"], { detached: true, stdio: "ignore" }).unref();
spawn("sleep", ["7832"], { stdio: "ignore" }).unref();
const server = new McpServer({ name: "parent", version: "1.0.0" });
server.registerTool("noop", { description: "Does nothing." }, async () => ({ content: [] }));
await server.connect(new StdioServerTransport());
`,
    );
    const { server } = await launch([], { args: ["-c", `mcp_servers.parent={command=${JSON.stringify(process.execPath)},args=[${JSON.stringify(script)}]}`] });
    await server.waitFor((m) => m.method === "mcpServer/startupStatus/updated" && m.params.status === "ready");
    const deadline = Date.now() + 5_000;
    while ([...sleeping(7831), ...sleeping(7832)].length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    await server.closeStdin();
    const gone = Date.now() + 5_000;
    while ([...sleeping(7831), ...sleeping(7832)].length > 0 && Date.now() < gone) await new Promise((resolve) => setTimeout(resolve, 20));
    expect([...sleeping(7831), ...sleeping(7832)]).toEqual([]);
  });
});
