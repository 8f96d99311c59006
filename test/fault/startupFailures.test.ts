import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ServerProcess } from "../support/serverProcess.js";

/** The server's one line on stderr when it cannot start: exit 1, no protocol, no stack, no JSON log line. */
async function failure(server: ServerProcess): Promise<string> {
  const exit = await server.waitExit();
  expect(exit.code).toBe(1);
  expect(server.messages).toEqual([]);
  const lines = server.stderr.trim().split("\n");
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^agent-app-server: /);
  return lines[0]!;
}

function scratch(): string {
  return mkdtempSync(path.join(os.tmpdir(), "aas-startup-"));
}

describe("start-up failures are one sentence and exit 1", () => {
  it("a home that is a file", async () => {
    const file = path.join(scratch(), "home");
    writeFileSync(file, "");
    expect(await failure(ServerProcess.start({ home: file }))).toBe(
      `agent-app-server: cannot use the home ${file}: a file is there, not a directory; set AGENT_APP_SERVER_HOME to a directory this user can write`,
    );
  });

  it("a listen address in use", async () => {
    const taken: Server = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const { port } = taken.address() as AddressInfo;
    try {
      const line = await failure(ServerProcess.start({ args: ["app-server", "--listen", `ws://127.0.0.1:${port}`] }));
      expect(line).toBe(`agent-app-server: cannot listen on ws://127.0.0.1:${port}: the address is already in use (EADDRINUSE); stop what listens there, or choose another address (port 0 picks a free one)`);
    } finally {
      taken.close();
    }
  });

  it("a config that is not UTF-8, and one that cannot be read", async () => {
    const home = scratch();
    writeFileSync(path.join(home, "config.toml"), Buffer.concat([Buffer.from('model = "'), Buffer.from([0xff, 0xfe]), Buffer.from('"\n')]));
    expect(await failure(ServerProcess.start({ home }))).toBe(`agent-app-server: Invalid config file ${path.join(home, "config.toml")}: it is not UTF-8 text (byte 9); save it as UTF-8`);
    const other = scratch();
    mkdirSync(path.join(other, "config.toml"));
    expect(await failure(ServerProcess.start({ home: other }))).toBe(
      `agent-app-server: Cannot read config file ${path.join(other, "config.toml")}: it is a directory (EISDIR); make it a readable file, or remove it`,
    );
  });
});
