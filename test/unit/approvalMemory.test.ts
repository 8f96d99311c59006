import { describe, expect, it } from "vitest";
import { ApprovalMemory, proposedPrefix } from "../../src/agent/approvalMemory.js";
import { commandVerdict } from "../../src/agent/safety/approvalRules.js";
import { parseScript } from "../../src/agent/safety/shellParser.js";

const bash = (script: string) => ["/bin/bash", "-lc", script];
const allows = async (memory: ApprovalMemory, script: string) =>
  commandVerdict(memory.rules(false), { argv: bash(script), parsed: await parseScript(script), cwd: "/tmp/aas-memory-ws", modelWritable: ["/tmp/aas-memory-ws"] })?.action === "allow";

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

  it("matches a whole-argv prefix, as Codex proposes for compound scripts", async () => {
    const memory = new ApprovalMemory();
    const script = "echo ok && touch done.txt";
    memory.allowPrefix(proposedPrefix(bash(script), await parseScript(script)), false);
    expect(await allows(memory, script)).toBe(true);
    expect(await allows(memory, "echo ok && touch other.txt")).toBe(false);
  });

  it("a prefix granted on a sandboxed question does not cover escalation; one granted on an escalation does", () => {
    const memory = new ApprovalMemory();
    memory.allowPrefix(["touch"], false);
    expect(memory.rules(false)).toHaveLength(1);
    expect(memory.rules(true)).toHaveLength(0);
    memory.allowPrefix(["make"], true);
    expect(memory.rules(true)).toEqual([{ action: "allow", command: ["make"] }]);
  });

  it("proposes the words of a simple command, else the whole argv; ignores an empty prefix", async () => {
    expect(proposedPrefix(bash("git status --short"), await parseScript("git status --short"))).toEqual(["git", "status", "--short"]);
    expect(proposedPrefix(bash("a | b"), await parseScript("a | b"))).toEqual(bash("a | b"));
    expect(proposedPrefix(bash("git log > x"), await parseScript("git log > x"))).toEqual(bash("git log > x"));
    const memory = new ApprovalMemory();
    memory.allowPrefix([], false);
    expect(await allows(memory, "ls")).toBe(false);
  });
});
