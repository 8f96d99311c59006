import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { displayCommand } from "../../src/agent/exec/shellWords.js";
import { decideCommand } from "../../src/agent/safety/decision.js";
import { isKnownSafeCommand, isKnownSafeRun, isKnownSafeScript } from "../../src/agent/safety/knownSafe.js";
import { parseScript } from "../../src/agent/safety/shellParser.js";
import { KNOWN_SAFE_TABLE } from "../support/knownSafeForms.js";

const WORKSPACE = mkdtempSync(path.join(tmpdir(), "aas-known-safe-"));
const CLEAN_PATH = "/usr/local/bin:/usr/bin:/bin";

afterAll(() => rmSync(WORKSPACE, { recursive: true, force: true }));

/** Whether `untrusted` runs a script unasked, in the workspace, with `searchPath` as PATH. */
async function runsUnasked(script: string, searchPath: string | null = CLEAN_PATH, argv = ["/bin/bash", "-lc", script]): Promise<boolean> {
  const decision = decideCommand({
    policy: "untrusted",
    sandbox: { type: "workspaceWrite" },
    argv,
    parsed: await parseScript(script),
    escalate: false,
    rules: [],
    learned: [],
    acceptedForSession: false,
    searchPath,
    modelWritable: [WORKSPACE],
    cwd: WORKSPACE,
  });
  return decision.kind === "run";
}

const ROWS = Object.entries(KNOWN_SAFE_TABLE).flatMap(([, { safe, unsafe }]) => [...safe.map((argv) => [argv, true] as const), ...unsafe.map((argv) => [argv, false] as const)]);

describe("known-safe: each command by an explicit grammar, argument by argument", () => {
  it("lists Codex's commands, and only them", () => {
    const codex = "base64 cat cd cut echo expr false find grep head id ls nl numfmt paste pwd rev rg sed seq stat tac tail tr true uname uniq wc which whoami";
    const listed = Object.entries(KNOWN_SAFE_TABLE).filter(([, forms]) => forms.safe.length > 0).map(([name]) => name);
    expect(listed.sort()).toEqual(codex.split(" "));
  });

  it.each(ROWS)("%j → %s", async (argv, safe) => {
    expect(isKnownSafeCommand(argv)).toBe(safe);
    // The same through the whole decision, as the model would write it.
    expect(await runsUnasked(displayCommand(argv))).toBe(safe);
  });

  it("needs a plain script whose every command is safe", async () => {
    expect(isKnownSafeScript(await parseScript("ls | wc -l && echo done"))).toBe(true);
    expect(isKnownSafeScript(await parseScript("ls | xargs rm"))).toBe(false);
    expect(isKnownSafeScript(await parseScript("'git status'"))).toBe(false);
    expect(isKnownSafeScript(await parseScript("cat *.txt"))).toBe(false);
    expect(isKnownSafeScript(await parseScript("sed -n 1p a.txt > out"))).toBe(false);
    expect(isKnownSafeScript(await parseScript(""))).toBe(false);
  });

  it("needs a PATH that finds only programs the model cannot have written", async () => {
    const door = path.join(tmpdir(), `aas-known-safe-door-${process.pid}`);
    symlinkSync(WORKSPACE, door);
    try {
      expect(await runsUnasked("cat a.txt")).toBe(true);
      for (const searchPath of [null, "", ":/usr/bin", "/usr/bin:", "/usr/bin::/bin", ".:/usr/bin", "bin:/usr/bin", `${WORKSPACE}/bin:/usr/bin`, `/usr/bin:${door}/bin`]) {
        expect(await runsUnasked("cat a.txt", searchPath), String(searchPath)).toBe(false);
      }
    } finally {
      rmSync(door);
    }
  });

  it("needs the tool's argv to run exactly that script, with a shell the model cannot have written", async () => {
    const parsed = await parseScript("ls");
    const facts = { parsed, searchPath: CLEAN_PATH, modelWritable: [WORKSPACE], cwd: WORKSPACE };
    expect(isKnownSafeRun({ ...facts, argv: ["/bin/bash", "-lc", "ls"] })).toBe(true);
    expect(isKnownSafeRun({ ...facts, argv: ["bash", "-c", "ls"] })).toBe(true);
    for (const argv of [[`${WORKSPACE}/bash`, "-lc", "ls"], ["./bash", "-c", "ls"], ["/bin/bash", "--norc", "ls"], ["/bin/sh", "-s", "ls"], ["/bin/bash", "ls"]]) {
      expect(isKnownSafeRun({ ...facts, argv }), argv.join(" ")).toBe(false);
    }
  });
});
