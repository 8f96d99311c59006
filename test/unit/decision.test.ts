import { describe, expect, it } from "vitest";
import { decideCommand, decidePatch, NEVER_ESCALATE, type CommandDecision } from "../../src/agent/safety/decision.js";
import { isKnownSafeCommand, isKnownSafeScript } from "../../src/agent/safety/knownSafe.js";
import { parseScript } from "../../src/agent/safety/shellParser.js";
import type { ApprovalRule } from "../../src/config/schema.js";
import type { AskForApproval, SandboxPolicy } from "../../src/protocol/policy.js";

const readOnly: SandboxPolicy = { type: "readOnly" };
const workspace: SandboxPolicy = { type: "workspaceWrite" };
const fullAccess: SandboxPolicy = { type: "dangerFullAccess" };
const granular = (sandbox_approval: boolean, rules: boolean): AskForApproval => ({
  granular: { sandbox_approval, rules, mcp_elicitations: false },
});

interface Row {
  script: string;
  policy: AskForApproval;
  sandbox?: SandboxPolicy;
  escalate?: boolean;
  rules?: ApprovalRule[];
  learned?: ApprovalRule[];
  accepted?: boolean;
  expected: CommandDecision["kind"] | "run unsandboxed" | "ask unsandboxed";
}

async function decide(row: Row): Promise<CommandDecision> {
  return decideCommand({
    policy: row.policy,
    sandbox: row.sandbox ?? workspace,
    argv: ["/bin/bash", "-lc", row.script],
    parsed: await parseScript(row.script),
    escalate: row.escalate ?? false,
    rules: row.rules ?? [],
    learned: row.learned ?? [],
    acceptedForSession: row.accepted ?? false,
  });
}

function label(decision: CommandDecision): Row["expected"] {
  if (decision.kind === "refuse") return "refuse";
  return decision.sandboxed ? decision.kind : decision.kind === "run" ? "run unsandboxed" : "ask unsandboxed";
}

const denyPush: ApprovalRule[] = [{ action: "deny", command: ["git", "push"] }];
const allowCargo: ApprovalRule[] = [{ action: "allow", command_regex: "cargo (build|test)( .*)?" }];
const askRm: ApprovalRule[] = [{ action: "ask", command: ["rm"] }];

// script, policy, sandbox, escalation, rules, earlier answers → decision
const TABLE: Row[] = [
  // untrusted: only known-safe plain scripts run unasked (the 13 tries of the issue, and more)
  { script: "ls -la", policy: "untrusted", expected: "run" },
  { script: "ls && pwd; echo 'hi' | wc -l", policy: "untrusted", expected: "run" },
  { script: "sed -n 1,5p file.txt", policy: "untrusted", expected: "run" },
  { script: "find . -name '*.ts'", policy: "untrusted", expected: "run" },
  { script: "ls\ntouch x", policy: "untrusted", expected: "ask" },
  { script: "env touch x", policy: "untrusted", expected: "ask" },
  { script: "sort -o x y", policy: "untrusted", expected: "ask" },
  { script: "uniq in out", policy: "untrusted", expected: "ask" },
  { script: "uniq -c in", policy: "untrusted", expected: "run" },
  { script: "tree -o x", policy: "untrusted", expected: "ask" },
  { script: "git branch x", policy: "untrusted", expected: "ask" },
  { script: "git status", policy: "untrusted", expected: "ask" },
  { script: "find . -delete", policy: "untrusted", expected: "ask" },
  { script: "find . -exec rm {} +", policy: "untrusted", expected: "ask" },
  { script: "find . -fprint out", policy: "untrusted", expected: "ask" },
  { script: "rg --pre ./evil x", policy: "untrusted", expected: "ask" },
  { script: "base64 -o out in", policy: "untrusted", expected: "ask" },
  { script: "ls > out", policy: "untrusted", expected: "ask" },
  { script: "echo $(touch x)", policy: "untrusted", expected: "ask" },
  { script: "echo `touch x`", policy: "untrusted", expected: "ask" },
  { script: "ls & touch x", policy: "untrusted", expected: "ask" },
  { script: "cat <(touch x)", policy: "untrusted", expected: "ask" },
  { script: "X=1 ls", policy: "untrusted", expected: "ask" },
  { script: "bash -c 'ls'", policy: "untrusted", expected: "ask" },
  { script: "./ls", policy: "untrusted", expected: "ask" },
  { script: "(ls)", policy: "untrusted", expected: "ask" },
  { script: "ls &&", policy: "untrusted", expected: "ask" },
  { script: "ls", policy: "untrusted", accepted: true, expected: "run" },
  // on-request and never: the sandbox decides; no question unless escalation
  { script: "touch x", policy: "on-request", expected: "run" },
  { script: "touch x", policy: "never", expected: "run" },
  { script: "touch x", policy: "on-request", escalate: true, expected: "ask unsandboxed" },
  { script: "touch x", policy: "untrusted", escalate: true, expected: "ask unsandboxed" },
  { script: "ls", policy: "untrusted", escalate: true, expected: "ask unsandboxed" },
  { script: "touch x", policy: "on-request", escalate: true, accepted: true, expected: "run unsandboxed" },
  { script: "touch x", policy: "on-request", sandbox: readOnly, escalate: true, expected: "ask unsandboxed" },
  // never means never escalate, whatever the rules say
  { script: "touch x", policy: "never", escalate: true, expected: "refuse" },
  { script: "cargo test", policy: "never", escalate: true, rules: allowCargo, expected: "refuse" },
  { script: "touch x", policy: granular(false, true), escalate: true, expected: "refuse" },
  { script: "touch x", policy: granular(true, true), escalate: true, expected: "ask unsandboxed" },
  // full access: nothing to escalate from
  { script: "touch x", policy: "never", sandbox: fullAccess, escalate: true, expected: "run unsandboxed" },
  { script: "touch x", policy: "on-request", sandbox: fullAccess, expected: "run unsandboxed" },
  { script: "touch x", policy: "untrusted", sandbox: fullAccess, expected: "ask unsandboxed" },
  // rules: deny anywhere, ask where the policy may ask, allow only plain scripts and never the sandbox
  { script: "git push 'origin;main'", policy: "on-request", rules: denyPush, expected: "refuse" },
  { script: "ls && git push", policy: "untrusted", rules: denyPush, expected: "refuse" },
  { script: "git push", policy: "on-request", sandbox: fullAccess, rules: denyPush, expected: "refuse" },
  { script: "cargo test --all", policy: "untrusted", rules: allowCargo, expected: "run" },
  { script: "cargo test $(touch x)", policy: "untrusted", rules: allowCargo, expected: "ask" },
  { script: "cargo test `touch x`", policy: "untrusted", rules: allowCargo, expected: "ask" },
  { script: "cargo test & touch x", policy: "untrusted", rules: allowCargo, expected: "ask" },
  { script: "cargo test > x", policy: "untrusted", rules: allowCargo, expected: "ask" },
  { script: "cargo test <(touch x)", policy: "untrusted", rules: allowCargo, expected: "ask" },
  { script: "cargo test", policy: "on-request", escalate: true, rules: allowCargo, expected: "ask unsandboxed" },
  { script: "rm -rf build", policy: "on-request", rules: askRm, expected: "ask" },
  { script: "ls; rm x", policy: "untrusted", rules: askRm, expected: "ask" },
  { script: "rm -rf build", policy: "never", rules: askRm, expected: "refuse" },
  { script: "rm -rf build", policy: granular(true, false), rules: askRm, expected: "refuse" },
  { script: "rm x", policy: "on-request", rules: askRm, accepted: true, expected: "ask" },
  { script: "npm test", policy: "untrusted", learned: [{ action: "allow", command: ["npm", "test"] }], expected: "run" },
  // a prefix the user allowed on an escalation request (callers pass only those for escalations)
  { script: "touch a", policy: "on-request", escalate: true, learned: [{ action: "allow", command: ["touch"] }], expected: "run unsandboxed" },
  { script: "touch a", policy: "never", escalate: true, learned: [{ action: "allow", command: ["touch"] }], expected: "refuse" },
  { script: "npm test; touch x", policy: "untrusted", learned: [{ action: "allow", command: ["npm", "test"] }], expected: "ask" },
];

describe("the decision module: command, policy, sandbox, escalation, rules → decision", () => {
  it.each(TABLE)("$script | $policy | escalate=$escalate → $expected", async (row) => {
    expect(label(await decide(row))).toBe(row.expected);
  });

  it("refuses an escalation under never with Codex's words", async () => {
    const decision = await decide({ script: "touch /etc/x", policy: "never", escalate: true, expected: "refuse" });
    expect(decision).toEqual({ kind: "refuse", message: NEVER_ESCALATE });
  });
});

describe("known-safe commands (Codex's rules)", () => {
  it.each([
    [["ls", "-la"], true],
    [["cat", "a"], true],
    [["grep", "-R", "x", "."], true],
    [["rg", "-n", "x"], true],
    [["rg", "-nz", "x"], false],
    [["rg", "--pre=cat", "x"], false],
    [["rg", "--hostname-bin", "x"], false],
    [["base64", "in"], true],
    [["base64", "-oout"], false],
    [["base64", "--output=x"], false],
    [["sed", "-n", "5p", "f"], true],
    [["sed", "-n", "1,5p", "f", "g"], false],
    [["sed", "-i", "s/a/b/", "f"], false],
    [["uniq", "in"], true],
    [["uniq", "-f", "2", "in"], true],
    [["uniq", "in", "out"], false],
    [["uniq", "--", "in", "out"], false],
    [["sort", "x"], false],
    [["tree"], false],
    [["env"], false],
    [["git", "log"], false],
    [["/bin/ls"], false],
    [["numfmt", "1000"], true],
  ] as [string[], boolean][])("%j → %s", (argv, safe) => {
    expect(isKnownSafeCommand(argv)).toBe(safe);
  });

  it("needs a plain script whose every command is safe", async () => {
    expect(isKnownSafeScript(await parseScript("ls | wc -l && echo done"))).toBe(true);
    expect(isKnownSafeScript(await parseScript("ls | xargs rm"))).toBe(false);
    expect(isKnownSafeScript(await parseScript("'git status'"))).toBe(false);
    expect(isKnownSafeScript(await parseScript(""))).toBe(false);
  });
});

describe("the shell parser", () => {
  it("gives the words bash would pass, quotes and escapes removed", async () => {
    expect((await parseScript(`echo "a \\"b\\"" 'c d' e\\ f g"h"'i' 42`)).plain).toEqual([["echo", 'a "b"', "c d", "e f", "ghi", "42"]]);
    expect((await parseScript("ls && pwd; echo 'hi there' | wc -l\nid")).plain).toEqual([["ls"], ["pwd"], ["echo", "hi there"], ["wc", "-l"], ["id"]]);
  });

  it("finds commands inside substitutions, subshells, heredocs and nested shells", async () => {
    const parsed = await parseScript("echo $(id) `whoami` <(uname) && (pwd) && bash -c 'sh -c \"date\"'");
    const names = parsed.commands.map((command) => command.words[0]?.text);
    expect(names).toEqual(expect.arrayContaining(["echo", "id", "whoami", "uname", "pwd", "bash", "sh", "date"]));
    expect(parsed.plain).toBeNull();
  });

  it("marks what it cannot see: non-literal nested scripts are opaque, globs and expansions are not literal", async () => {
    expect((await parseScript('bash -c "$X"')).commands.some((command) => command.opaque)).toBe(true);
    const words = (await parseScript("ls *.ts ~ {a,b} $HOME 'lit*'")).commands[0]!.words;
    expect(words.map((word) => word.literal)).toEqual([true, false, false, false, false, true]);
  });

  it("a script that does not parse is opaque and never plain", async () => {
    const parsed = await parseScript("ls )(");
    expect(parsed.plain).toBeNull();
    expect(parsed.commands.some((command) => command.opaque)).toBe(true);
  });
});
