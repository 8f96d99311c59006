import { describe, expect, it } from "vitest";
import { ApprovalMemory } from "../../src/agent/approvalMemory.js";
import { proposedPrefix } from "../../src/agent/safety/proposedPrefix.js";
import { commandVerdict } from "../../src/agent/safety/approvalRules.js";
import { decideCommand } from "../../src/agent/safety/decision.js";
import { isKnownSafeCommand } from "../../src/agent/safety/knownSafe.js";
import { parseScript } from "../../src/agent/safety/shellParser.js";
import type { ApprovalRule } from "../../src/config/schema.js";
import type { AskForApproval } from "../../src/protocol/policy.js";

const bash = (script: string) => ["/bin/bash", "-lc", script];
const allows = async (memory: ApprovalMemory, script: string, harmless?: (words: readonly string[]) => boolean) =>
  commandVerdict(memory.rules(false), { argv: bash(script), parsed: await parseScript(script), cwd: "/tmp/aas-memory-ws", modelWritable: ["/tmp/aas-memory-ws"] }, harmless)?.action ===
  "allow";

describe("ApprovalMemory", () => {
  it("allows commands that start with an accepted prefix, and nothing chained after them", async () => {
    const memory = new ApprovalMemory();
    memory.allowPrefix(["npm", "test"], false);
    expect(await allows(memory, "npm test -- --watch=false")).toBe(true);
    expect(await allows(memory, "npm install")).toBe(false);
    expect(await allows(memory, "npm test && rm -rf /")).toBe(false);
    expect(await allows(memory, "npm test; curl x | sh")).toBe(false);
    expect(await allows(memory, "npm test $(rm -rf /)")).toBe(false);
  });

  it("allows a script again once its asked command is granted, when the rest is known-safe, as Codex checks each command", async () => {
    const memory = new ApprovalMemory();
    const script = "echo ok && touch done.txt";
    memory.allowPrefix(proposedPrefix(bash(script), await parseScript(script)), false);
    expect(memory.rules(false)).toEqual([{ action: "allow", command: ["touch", "done.txt"] }]);
    expect(await allows(memory, script, isKnownSafeCommand)).toBe(true);
    expect(await allows(memory, script)).toBe(false);
    expect(await allows(memory, "echo ok && touch other.txt", isKnownSafeCommand)).toBe(false);
    expect(await allows(memory, "touch done.txt && rm -rf x", isKnownSafeCommand)).toBe(false);
    expect(await allows(memory, "echo $(rm -rf x) && touch done.txt", isKnownSafeCommand)).toBe(false);
  });

  it("a prefix granted on a sandboxed question does not cover escalation; one granted on an escalation does", () => {
    const memory = new ApprovalMemory();
    memory.allowPrefix(["touch"], false);
    expect(memory.rules(false)).toHaveLength(1);
    expect(memory.rules(true)).toHaveLength(0);
    memory.allowPrefix(["make"], true);
    expect(memory.rules(true)).toEqual([{ action: "allow", command: ["make"] }]);
  });

  it("proposes, as Codex, a plain script's first command that is not known-safe, else the whole argv; ignores an empty prefix", async () => {
    const proposed = async (script: string) => proposedPrefix(bash(script), await parseScript(script));
    expect(await proposed("git status --short")).toEqual(["git", "status", "--short"]);
    expect(await proposed("a | b")).toEqual(["a"]);
    expect(await proposed("touch approved.txt && echo hi")).toEqual(["touch", "approved.txt"]);
    expect(await proposed("echo ok; cat x && touch done.txt || rm y")).toEqual(["touch", "done.txt"]);
    expect(await proposed("ls && cat x")).toEqual(bash("ls && cat x"));
    expect(proposedPrefix(bash("git log > x"), await parseScript("git log > x"))).toEqual(bash("git log > x"));
    const memory = new ApprovalMemory();
    memory.allowPrefix([], false);
    expect(await allows(memory, "ls")).toBe(false);
  });
});

/** A decision under `policy` in a workspace-write sandbox, with a clean PATH (found by the attack review of known-safe allowances). */
async function decide(script: string, options: { escalate?: boolean; learned?: ApprovalRule[]; rules?: ApprovalRule[]; policy?: AskForApproval }) {
  return decideCommand({
    policy: options.policy ?? "on-request",
    sandbox: { type: "workspaceWrite", writableRoots: [], networkAccess: false, excludeTmpdirEnvVar: false, excludeSlashTmp: false },
    argv: bash(script),
    parsed: await parseScript(script),
    escalate: options.escalate ?? false,
    rules: options.rules ?? [],
    learned: options.learned ?? [],
    acceptedForSession: false,
    searchPath: "/usr/local/bin:/usr/bin:/bin",
    modelWritable: ["/tmp/aas-memory-ws"],
    cwd: "/tmp/aas-memory-ws",
  });
}

describe("known-safe commands beside allowed ones", () => {
  it("never ride an escalation: outside the sandbox every command needs the user's yes", async () => {
    const learned: ApprovalRule[] = [{ action: "allow", command: ["docker", "ps"] }];
    expect(await decide("docker ps && cat /home/user/.ssh/id_rsa", { escalate: true, learned })).toEqual({ kind: "ask", sandboxed: false });
    expect(await decide("docker ps", { escalate: true, learned })).toEqual({ kind: "run", sandboxed: false });
    expect(await decide("docker ps && cat notes.md", { learned, policy: "untrusted" })).toEqual({ kind: "run", sandboxed: true });
  });

  it("never feed an allowed command through a pipe", async () => {
    const rules: ApprovalRule[] = [{ action: "allow", command: ["sqlite3", "app.db"] }];
    expect(await decide("echo '.shell touch pwned' | sqlite3 app.db", { rules, policy: "untrusted" })).toEqual({ kind: "ask", sandboxed: true });
    expect(await decide("sqlite3 app.db && echo done", { rules, policy: "untrusted" })).toEqual({ kind: "run", sandboxed: true });
  });

  it("are never proposed alone, and neither is a program that runs its words", async () => {
    const proposed = async (script: string) => proposedPrefix(bash(script), await parseScript(script));
    expect(await proposed("true && ls /")).toEqual(bash("true && ls /"));
    const runners = ["find / -name id_rsa", "sed -n 1,5p notes.txt", "rg TODO src", "tar -tf a.tar", "make", "npm test", "gawk 'BEGIN{print 1}'", "python3.12 x.py", "nodejs x.js", "toybox"];
    for (const script of ["echo hi && env && make", "ls && sh && echo", "nice && rm x", "xargs && rm", "sudo rm -rf x", "bash -c 'rm x'", ...runners]) {
      expect(await proposed(script), script).toEqual(bash(script));
    }
  });
});
