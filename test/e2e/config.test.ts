import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ServerProcess } from "../support/serverProcess.js";

const homes: string[] = [];
function homeWithConfig(toml: string): string {
  const home = mkdtempSync(path.join(os.tmpdir(), "aas-config-"));
  writeFileSync(path.join(home, "config.toml"), toml);
  homes.push(home);
  return home;
}
afterEach(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});

async function startupFailure(server: ServerProcess): Promise<string> {
  const exit = await server.waitExit();
  expect(exit.code).toBe(1);
  expect(server.messages).toEqual([]);
  expect(server.stderr).not.toMatch(/\n\s+at /);
  return server.stderr;
}

describe("config", () => {
  it("names the file, line and column of a TOML syntax error", async () => {
    const home = homeWithConfig('model = "gpt-5.5"\napproval_policy = \n');
    const stderr = await startupFailure(ServerProcess.start({ home }));
    expect(stderr).toContain(`Invalid config file ${path.join(home, "config.toml")}, line 2, column`);
  });

  it("names the file, line and key of an invalid value", async () => {
    const home = homeWithConfig('model = "gpt-5.5"\n\n[model_providers.mock]\nname = "mock"\nwire_api = "carrier-pigeon"\n');
    const stderr = await startupFailure(ServerProcess.start({ home }));
    expect(stderr).toContain(`${path.join(home, "config.toml")}, line 5: key \`model_providers.mock.wire_api\``);
    expect(stderr).toContain('expected one of "responses"|"chat"');
  });

  it("names a bad -c override", async () => {
    const server = ServerProcess.start({ args: ["app-server", "-c", "approval_policy=sometimes"] });
    const stderr = await startupFailure(server);
    expect(stderr).toContain("Invalid config override -c approval_policy=sometimes: key `approval_policy`");
  });

  it("accepts the -c flags that drive codex app-server in the peer harness", async () => {
    const server = ServerProcess.start({
      args: [
        "app-server",
        "-c",
        'model_provider="mock"',
        "-c",
        'model_providers.mock={name="mock",base_url="http://127.0.0.1:9/v1",wire_api="responses",request_max_retries=0,stream_max_retries=0}',
        "-c",
        'model="gpt-5.5"',
        "-c",
        "approval_policy=on-request",
        "-c",
        "sandbox_mode=workspace-write",
      ],
    });
    await server.initialize();
    const exit = await server.closeStdin();
    expect(exit.code).toBe(0);
    expect(server.messages.some((m) => m.method === "configWarning")).toBe(false);
  });

  it("warns about keys it does not use after initialize, unless the client opts out", async () => {
    const home = homeWithConfig('model = "gpt-5.5"\nnotify = ["say", "done"]\n');
    const warned = ServerProcess.start({ home });
    await warned.initialize();
    const warning = await warned.waitFor((m) => m.method === "configWarning");
    expect(warning.params).toEqual({
      summary: "1 config key(s) have no effect in agent-app-server",
      details: "Ignored keys: notify",
      path: path.join(home, "config.toml"),
    });
    expect(warned.messages.indexOf(warning)).toBe(1);

    const quiet = ServerProcess.start({ home });
    await quiet.initialize({ optOutNotificationMethods: ["configWarning"] });
    await quiet.request("initialize", { clientInfo: { name: "x", version: "1" } }, "after");
    expect(quiet.messages.map((m) => m.method ?? m.id)).toEqual([1000, "after"]);
  });

  it("names a key no version knows as a likely typo, with the nearest known key, on stderr at start-up and to clients", async () => {
    const home = homeWithConfig('approval_polcy = "never"\nnotify = ["say", "done"]\n');
    const server = ServerProcess.start({ home });
    await server.initialize();
    const warning = await server.waitFor((m) => m.method === "configWarning");
    expect(warning.params).toMatchObject({
      summary: "config.toml has a key no Codex or agent-app-server version knows: approval_polcy (did you mean approval_policy?)",
      details: "Ignored keys: approval_polcy (did you mean approval_policy?), notify",
    });
    expect(server.stderr).toContain("did you mean approval_policy?");
  });

  it("says how to quote a string written bare", async () => {
    const server = ServerProcess.start({ home: homeWithConfig("model = gpt-5.5\n"), protocol: false });
    expect((await server.waitExit()).code).toBe(1);
    expect(server.stderr.trim()).toMatch(/line 1, column \d+: invalid value \(a string needs quotes: model = "gpt-5\.5"\)$/);
  });
});
