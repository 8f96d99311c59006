import { describe, expect, it } from "vitest";
import { AppServerClient, ConnectionClosedError } from "../../src/client/index.js";
import { CLI_PATH } from "../support/serverProcess.js";
import { cleanup, deferred, tempDir, within } from "./support.js";

/**
 * A stand-in server: writes two lines to stderr, answers `initialize`, and on `thread/list`
 * writes a last stderr line and exits with code 3.
 */
const SCRIPT = `
process.stderr.write("first line\\nsecond line\\n");
require("node:readline").createInterface({ input: process.stdin }).on("line", (line) => {
  const message = JSON.parse(line);
  if (message.method === "initialize") {
    process.stdout.write(JSON.stringify({ id: message.id, result: { userAgent: "stub/1", codexHome: "/stub", platformFamily: "unix", platformOs: "linux" } }) + "\\n");
  }
  if (message.method === "thread/list") {
    process.stderr.write("fatal: boom\\n", () => process.exit(3));
  }
});
`;

async function spawnStub(options: Parameters<typeof AppServerClient.spawn>[0] = {}): Promise<AppServerClient> {
  const client = await AppServerClient.spawn({ command: [process.execPath, "-e", SCRIPT], ...options });
  cleanup(() => client.close());
  return client;
}

describe("the spawned server's stderr", () => {
  it("goes line by line to a callback", async () => {
    const lines: string[] = [];
    const both = deferred();
    const client = await spawnStub({
      stderr: (line) => {
        lines.push(line);
        if (lines.length === 2) both.resolve();
      },
    });
    await within(both.promise, "two stderr lines");
    expect(lines).toEqual(["first line", "second line"]);
    expect(client.pid).toEqual(expect.any(Number));
  });

  it("is dropped by default, but an unexpected exit quotes its last lines and names the exit code", async () => {
    const client = await spawnStub();
    const failure = await client.request("thread/list", {}, { timeoutMs: 10_000 }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ConnectionClosedError);
    expect((failure as Error).message).toBe("the server exited with code 3; its last stderr lines:\nfirst line\nsecond line\nfatal: boom");
    expect(client.closed).toBe(true);
  });

  it("gets the real server's log lines when LOG_LEVEL asks for them", async () => {
    const lines: string[] = [];
    const logged = deferred();
    const home = tempDir();
    const client = await AppServerClient.spawn({
      command: [process.execPath, CLI_PATH, "app-server"],
      env: { ...process.env, AGENT_APP_SERVER_HOME: home, HOME: home, LOG_LEVEL: "debug" },
      stderr: (line) => {
        lines.push(line);
        logged.resolve();
      },
    });
    cleanup(() => client.close());
    await client.startThread({ cwd: tempDir() });
    await within(logged.promise, "a log line");
    expect(() => JSON.parse(lines[0]!)).not.toThrow();
  });

  it("names a command that cannot be started", async () => {
    const failure = await AppServerClient.spawn({ command: ["/nonexistent/agent-app-server"] }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ConnectionClosedError);
    expect((failure as Error).message).toMatch(/^could not start the server \(\/nonexistent\/agent-app-server\): spawn \/nonexistent\/agent-app-server ENOENT/);
  });
});
