import { describe, expect, it } from "vitest";
import { decideCommand, decidePatch, NEVER_ESCALATE, type CommandDecision } from "../../src/agent/safety/decision.js";
import { parseScript } from "../../src/agent/safety/shellParser.js";
import type { ApprovalRule } from "../../src/config/schema.js";
import type { AskForApproval, SandboxPolicy } from "../../src/protocol/policy.js";

const readOnly: SandboxPolicy = { type: "readOnly" };
const workspace: SandboxPolicy = { type: "workspaceWrite" };
const fullAccess: SandboxPolicy = { type: "dangerFullAccess" };
const granular = (sandbox_approval: boolean, rules: boolean): AskForApproval => ({
  granular: { sandbox_approval, rules, mcp_elicitations: false },
});

/** The workspace the model writes in these rows, and a PATH outside it. */
const WORKSPACE = "/tmp/aas-decision-ws";
const CLEAN_PATH = "/usr/local/bin:/usr/bin:/bin";

interface Row {
  script: string;
  policy: AskForApproval;
  sandbox?: SandboxPolicy;
  escalate?: boolean;
  rules?: ApprovalRule[];
  learned?: ApprovalRule[];
  accepted?: boolean;
  searchPath?: string | null;
  argv?: string[];
  expected: CommandDecision["kind"] | "run unsandboxed" | "ask unsandboxed";
}

async function decide(row: Row): Promise<CommandDecision> {
  return decideCommand({
    policy: row.policy,
    sandbox: row.sandbox ?? workspace,
    argv: row.argv ?? ["/bin/bash", "-lc", row.script],
    parsed: await parseScript(row.script),
    escalate: row.escalate ?? false,
    rules: row.rules ?? [],
    learned: row.learned ?? [],
    acceptedForSession: row.accepted ?? false,
    searchPath: row.searchPath === undefined ? CLEAN_PATH : row.searchPath,
    modelWritable: [WORKSPACE, "/tmp"],
    cwd: WORKSPACE,
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
  // known-safe needs a clean PATH and an argv that runs exactly the checked script
  { script: "ls", policy: "untrusted", searchPath: null, expected: "ask" },
  { script: "ls", policy: "untrusted", searchPath: "", expected: "ask" },
  { script: "ls", policy: "untrusted", searchPath: ".:/usr/bin", expected: "ask" },
  { script: "ls", policy: "untrusted", searchPath: "/usr/bin::/bin", expected: "ask" },
  { script: "ls", policy: "untrusted", searchPath: "bin:/usr/bin", expected: "ask" },
  { script: "ls", policy: "untrusted", searchPath: `/usr/bin:${WORKSPACE}/node_modules/.bin`, expected: "ask" },
  { script: "ls", policy: "untrusted", searchPath: "/tmp/tools:/usr/bin", expected: "ask" },
  // A deny rule in force and a PATH that can find the model's programs: any bare name may be its script.
  { script: "ls", policy: "on-request", rules: denyPush, expected: "run" },
  { script: "ls", policy: "on-request", rules: denyPush, searchPath: `/usr/bin:${WORKSPACE}/node_modules/.bin`, expected: "ask" },
  { script: "ls", policy: "on-request", rules: denyPush, searchPath: null, expected: "ask" },
  { script: "ls", policy: "never", rules: denyPush, searchPath: ".:/usr/bin", expected: "refuse" },
  { script: "ls", policy: "on-request", searchPath: ".:/usr/bin", expected: "run" },
  { script: "git push", policy: "on-request", rules: denyPush, searchPath: null, expected: "refuse" },
  { script: "ls", policy: "untrusted", argv: [`${WORKSPACE}/bash`, "-c", "ls"], expected: "ask" },
  { script: "ls", policy: "untrusted", argv: ["./bash", "-c", "ls"], expected: "ask" },
  { script: "ls", policy: "untrusted", argv: ["/bin/bash", "--norc", "ls"], expected: "ask" },
  { script: "ls", policy: "untrusted", argv: ["/bin/bash", "-c", "ls"], expected: "run" },
  // what runs cannot be known while a deny rule is in force: asked, refused where nobody may be asked
  { script: "./deploy.sh", policy: "on-request", rules: denyPush, expected: "ask" },
  { script: "./deploy.sh", policy: "on-request", rules: denyPush, accepted: true, expected: "ask" },
  { script: "./deploy.sh", policy: "never", rules: denyPush, expected: "refuse" },
  { script: "./deploy.sh", policy: granular(true, false), rules: denyPush, expected: "refuse" },
  { script: "./deploy.sh", policy: "on-request", rules: denyPush, escalate: true, expected: "ask unsandboxed" },
  { script: "./deploy.sh", policy: "on-request", escalate: true, accepted: true, rules: denyPush, expected: "ask unsandboxed" },
  { script: "./deploy.sh", policy: "on-request", rules: askRm, expected: "ask" },
  { script: "./deploy.sh", policy: "never", rules: askRm, expected: "refuse" },
  { script: "./deploy.sh", policy: "on-request", rules: allowCargo, expected: "run" },
  { script: "./deploy.sh", policy: "on-request", expected: "run" },
  { script: "./deploy.sh", policy: "untrusted", rules: [{ action: "allow", command: ["./deploy.sh"] }], expected: "ask" },
  { script: "/usr/bin/git push", policy: "on-request", rules: denyPush, expected: "refuse" },
  { script: "bash script.sh", policy: "on-request", rules: denyPush, expected: "ask" },
  { script: "cat x | sh", policy: "on-request", rules: denyPush, expected: "ask" },
  { script: "git $SUB origin", policy: "on-request", rules: denyPush, expected: "ask" },
  { script: "git -c alias.x=push x", policy: "on-request", rules: denyPush, expected: "ask" },
  { script: "PATH=. git status", policy: "on-request", rules: denyPush, expected: "ask" },
  { script: "git status", policy: "on-request", rules: denyPush, expected: "run" },
  { script: "echo push | xargs git", policy: "never", rules: denyPush, expected: "refuse" },
  { script: "GIT_SSH_COMMAND='git push' git fetch", policy: "on-request", rules: denyPush, expected: "refuse" },
];

describe("the decision module: command, policy, sandbox, escalation, rules → decision", () => {
  it.each(TABLE)("$script | $policy | escalate=$escalate → $expected", async (row) => {
    expect(label(await decide(row))).toBe(row.expected);
  });

  it("refuses an escalation under never with Codex's words", async () => {
    const decision = await decide({ script: "touch /etc/x", policy: "never", escalate: true, expected: "refuse" });
    expect(decision).toEqual({ kind: "refuse", message: NEVER_ESCALATE });
  });

  it("tells a literal deny from a deny that may apply", async () => {
    const rules: ApprovalRule[] = [{ action: "deny", command: ["git", "push"], description: "pushing is for humans" }];
    expect(await decide({ script: "env -u X git push", policy: "on-request", rules, expected: "refuse" })).toEqual({
      kind: "refuse",
      message: "approval rule 1 (deny: pushing is for humans) forbids this command; it was not run.",
    });
    expect(await decide({ script: "bash ./deploy.sh", policy: "never", rules, expected: "refuse" })).toEqual({
      kind: "refuse",
      message:
        "approval rule 1 (deny: pushing is for humans) is in force and what this command runs cannot be known (bash reads its script from a file); the approval policy does not allow asking, so it was not run.",
    });
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

  it("marks what it cannot see: non-literal nested scripts are unknown, globs and expansions are not literal", async () => {
    expect((await parseScript('bash -c "$X"')).commands.some((command) => command.unknown !== null)).toBe(true);
    const words = (await parseScript("ls *.ts ~ {a,b} $HOME 'lit*' pu{sh,} \\{a,b} [ '{'a,b'}' {} \"$@\" \"$X\"")).commands[0]!.words;
    expect(words.map((word) => [word.literal, word.splits])).toEqual([
      [true, false], [false, true], [false, false], [false, true], [false, true], [true, false], [false, true], [true, false], [true, false], [true, false],
      [true, false], [false, true], [false, false],
    ]);
  });

  it("a script that does not parse is unknown and never plain", async () => {
    const parsed = await parseScript("ls )(");
    expect(parsed.plain).toBeNull();
    expect(parsed.commands.some((command) => command.unknown !== null)).toBe(true);
  });
});
