import os from "node:os";
import { describe, expect, it } from "vitest";
import { parseScenario } from "../../src/testing/scenario.js";
import { normalizationPatterns } from "../../src/testing/scenarioRunner.js";

const apply = (text: string, normalize: Parameters<typeof normalizationPatterns>[0]) =>
  normalizationPatterns(normalize).reduce((value, { regex, with: to }) => value.replace(regex, to), text);

describe("a scenario's normalize and files", () => {
  it("replaces this machine's user and host as whole words only, times, and the scenario's own patterns", () => {
    const user = os.userInfo().username;
    expect(apply(`${user}\n${user}s ${user}-x a.${user} ${os.hostname()}`, ["user", "hostname"])).toBe(`{USER}\n${user}s ${user}-x a.${user} {HOSTNAME}`);
    expect(apply("at 2026-11-28T07:45:07Z and 12:01:02, not 12:01", ["time"])).toBe("at {TIME} and {TIME}, not 12:01");
    expect(apply("pid 4242 and pid 17", [{ pattern: "pid \\d+", with: "pid {N}" }])).toBe("pid {N} and pid {N}");
  });

  it("refuses a workspace file that would be written outside the workspace", () => {
    for (const name of ["../escape.txt", "a/../../escape.txt", "/etc/x", ""]) {
      expect(() => parseScenario({ name: "x", steps: [], files: { [name]: "x" } }), name).toThrow(/^invalid scenario at files\..*: a file of the workspace: a relative path that stays inside it$/);
    }
    expect(parseScenario({ name: "x", steps: [], files: { "src/a..b.txt": "x" } }).files).toEqual({ "src/a..b.txt": "x" });
  });

  it("refuses a pattern that is no regular expression, naming the entry", () => {
    expect(() => parseScenario({ name: "x", steps: [], normalize: [{ pattern: "(", with: "" }] })).toThrow("invalid scenario at normalize[0].pattern: not a valid regular expression");
  });
});
