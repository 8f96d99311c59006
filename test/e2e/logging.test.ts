import { describe, expect, it } from "vitest";
import { resolveLogLevel } from "../../src/runtime/logger.js";
import { ServerProcess } from "../support/serverProcess.js";

describe("logging knobs never stop the server", () => {
  it("maps common spellings, falls back to info on anything else, and lets our variable win", () => {
    expect(resolveLogLevel({ LOG_LEVEL: "warning" })).toEqual({ level: "warn", warning: null });
    expect(resolveLogLevel({ LOG_LEVEL: "VERBOSE" })).toEqual({ level: "debug", warning: null });
    expect(resolveLogLevel({ LOG_LEVEL: "err" })).toEqual({ level: "error", warning: null });
    expect(resolveLogLevel({})).toEqual({ level: "info", warning: null });
    expect(resolveLogLevel({ LOG_LEVEL: "loud" })).toEqual({ level: "info", warning: expect.stringContaining('LOG_LEVEL="loud" is not a log level') });
    expect(resolveLogLevel({ LOG_LEVEL: "loud", AGENT_APP_SERVER_LOG_LEVEL: "debug" })).toEqual({ level: "debug", warning: null });
  });

  it("serves with LOG_LEVEL=warning, verbose or nonsense (one warning), and writes readable lines when asked", async () => {
    for (const value of ["warning", "verbose", "nonsense"]) {
      const server = ServerProcess.start({ env: { LOG_LEVEL: value } });
      await server.initialize();
      expect((await server.request("thread/list", {})).result.data).toEqual([]);
      const exit = await server.closeStdin();
      expect(exit.code).toBe(0);
      expect(server.stderr).not.toMatch(/\n\s+at /);
      if (value === "nonsense") expect(server.stderr.match(/is not a log level/g)).toHaveLength(1);
    }
    const pretty = ServerProcess.start({ env: { AGENT_APP_SERVER_LOG_FORMAT: "pretty", LOG_LEVEL: "info" } });
    await pretty.initialize();
    await pretty.closeStdin();
    expect(pretty.stderr).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO  serving on stdio home=/m);
    expect(pretty.stderr).not.toMatch(/^\{"level"/m);
  });
});
