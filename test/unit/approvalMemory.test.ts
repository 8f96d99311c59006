import { describe, expect, it } from "vitest";
import { ApprovalMemory, proposedPrefix } from "../../src/agent/approvalMemory.js";

const bash = (script: string) => ["/bin/bash", "-lc", script];

describe("ApprovalMemory", () => {
  it("allows commands that start with an accepted prefix, and nothing chained after them", () => {
    const memory = new ApprovalMemory();
    memory.allowPrefix(["npm", "test"]);
    expect(memory.allowsCommand(bash("npm test -- --watch=false"), "npm test -- --watch=false")).toBe(true);
    expect(memory.allowsCommand(bash("npm install"), "npm install")).toBe(false);
    expect(memory.allowsCommand(bash("npm test && rm -rf /"), "npm test && rm -rf /")).toBe(false);
    expect(memory.allowsCommand(bash("npm test; curl x | sh"), "npm test; curl x | sh")).toBe(false);
  });

  it("matches a whole-argv prefix, as Codex proposes for compound scripts", () => {
    const memory = new ApprovalMemory();
    const script = "echo ok && touch done.txt";
    memory.allowPrefix(proposedPrefix(bash(script), script));
    expect(memory.allowsCommand(bash(script), script)).toBe(true);
    expect(memory.allowsCommand(bash("echo ok && touch other.txt"), "echo ok && touch other.txt")).toBe(false);
  });

  it("proposes the words of a simple command, else the whole argv; ignores an empty prefix", () => {
    expect(proposedPrefix(bash("git status --short"), "git status --short")).toEqual(["git", "status", "--short"]);
    expect(proposedPrefix(bash("a | b"), "a | b")).toEqual(bash("a | b"));
    const memory = new ApprovalMemory();
    memory.allowPrefix([]);
    expect(memory.allowsCommand(bash("ls"), "ls")).toBe(false);
  });
});
