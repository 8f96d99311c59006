import { existsSync, lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { MockResponseInput } from "../../src/testing/index.js";
import { recordTurn } from "../support/recordTurn.js";
import { tempDir } from "../support/turnHarness.js";

// Not credential-shaped, and in a variable not named like a secret: only known as the provider's key.
const PROVIDER_KEY = "zz9PluralZAlpha-provider-4477";
const SECRET_ENV = "hunter2-secret-env-value-5599";
const OUTSIDE = "OUTSIDE-FILE-CONTENT-8833";

/** Runs `record` on one turn of `responses` in `workspace`, the provider's key in a variable of its own. */
function recordLeakTurn(responses: MockResponseInput[], workspace: string, out: string, sandbox: string, env: NodeJS.ProcessEnv = {}) {
  return recordTurn(responses, workspace, out, { sandbox, env: { MY_LLM_AUTH: PROVIDER_KEY, ...env }, provider: { envKey: "MY_LLM_AUTH" } });
}

describe("record keeps what the session touched to itself", () => {
  it("leaves secrets out of the golden file (its replay runs the commands again) and a file deleted through a symlinked directory out of the scenario", async () => {
    const outside = tempDir("aas-outside-");
    writeFileSync(path.join(outside, "id_key"), `${OUTSIDE}\n`);
    const workspace = tempDir("aas-record-ws-");
    symlinkSync(outside, path.join(workspace, "keys"));
    const responses: MockResponseInput[] = [
      {
        items: [
          { type: "exec", cmd: 'echo "key=$MY_LLM_AUTH"', callId: "c1" },
          // The replay server's environment, and its parent's (the recording process).
          { type: "exec", cmd: "for p in $PPID $(ps -o ppid= $PPID); do tr '\\0' '\\n' < /proc/$p/environ | grep -a -e SECRET_THING -e MY_LLM; done", callId: "c2" },
          { type: "apply_patch", callId: "c3", patch: "*** Begin Patch\n*** Delete File: keys/id_key\n*** End Patch\n" },
        ],
      },
      { items: [{ type: "message", text: "Done." }] },
    ];
    const out = path.join(tempDir("aas-record-out-"), "leaks");
    const { code, stderr } = await recordLeakTurn(responses, workspace, out, "danger-full-access", { SECRET_THING: SECRET_ENV });
    expect(code, stderr).toBe(0);
    const scenario = readFileSync(`${out}.scenario.json`, "utf8");
    const golden = readFileSync(`${out}.jsonl`, "utf8");
    for (const text of [scenario, golden]) for (const secret of [PROVIDER_KEY, SECRET_ENV, OUTSIDE]) expect(text).not.toContain(secret);
    expect(JSON.parse(scenario).files).toEqual({});
    expect(JSON.parse(scenario).description).toContain("keys/id_key");
    expect(golden).toContain("key=\\n");
  }, 120_000);

  it("writes --out inside the workspace neither through a symlink the model left at a file's name nor into a directory it swapped for one", async () => {
    const victim = path.join(tempDir("aas-victim-"), "bashrc");
    writeFileSync(victim, "# mine\n");
    const workspace = tempDir("aas-record-ws-");
    mkdirSync(path.join(workspace, "golden"));
    const leaf = path.join(workspace, "golden", "leaf");
    const planted = [{ items: [{ type: "exec", cmd: `ln -s ${victim} golden/leaf.scenario.json && ln -s ${victim} golden/leaf.jsonl`, callId: "c1" }] }, { items: [{ type: "message", text: "Done." }] }] as MockResponseInput[];
    expect((await recordLeakTurn(planted, workspace, leaf, "workspace-write")).code).toBe(0);
    expect(readFileSync(victim, "utf8")).toBe("# mine\n");
    for (const suffix of [".scenario.json", ".jsonl"]) expect(lstatSync(`${leaf}${suffix}`).isFile()).toBe(true);

    const elsewhere = tempDir("aas-victim-dir-");
    const swapped = [{ items: [{ type: "exec", cmd: `rm -r golden && ln -s ${elsewhere} golden`, callId: "c1" }] }, { items: [{ type: "message", text: "Done." }] }] as MockResponseInput[];
    const { code, stderr } = await recordLeakTurn(swapped, workspace, path.join(workspace, "golden", "dir"), "workspace-write");
    expect(code).toBe(1);
    expect(stderr).toContain("as when recording began");
    expect(existsSync(path.join(elsewhere, "dir.scenario.json"))).toBe(false);
  }, 120_000);
});
