import { describe, expect, it } from "vitest";
import { commandVerdict, pathVerdict } from "../../src/agent/safety/approvalRules.js";
import { parseScript } from "../../src/agent/safety/shellParser.js";
import { Config, type ApprovalRule } from "../../src/config/schema.js";

const bash = (script: string) => ["/bin/bash", "-lc", script];
const verdict = async (rules: ApprovalRule[], script: string) =>
  commandVerdict(rules, { argv: bash(script), parsed: await parseScript(script) })?.action ?? null;

describe("approval rules", () => {
  it("matches argv prefixes per simple command: deny anywhere refuses, allow needs every part", async () => {
    const rules: ApprovalRule[] = [
      { action: "deny", command: ["git", "push"] },
      { action: "allow", command: ["npm", "test"] },
      { action: "ask", command: ["rm"] },
    ];
    expect(await verdict(rules, "git push origin main")).toBe("deny");
    expect(await verdict(rules, "npm test && git push")).toBe("deny");
    expect(await verdict(rules, "npm test -- --run")).toBe("allow");
    expect(await verdict(rules, "npm test && npm test")).toBe("allow");
    expect(await verdict(rules, "npm test && ls")).toBeNull();
    expect(await verdict(rules, "npm test; rm -rf build")).toBe("ask");
    expect(await verdict(rules, "gitpush")).toBeNull();
  });

  it("takes the first matching rule, and anchors regexes", async () => {
    const rules: ApprovalRule[] = [
      { action: "allow", command_regex: "cargo (build|test)( .*)?" },
      { action: "deny", command: ["cargo"] },
    ];
    expect(await verdict(rules, "cargo test --all")).toBe("allow");
    expect(await verdict(rules, "cargo publish")).toBe("deny");
    expect(await verdict(rules, "xcargo test")).toBeNull();
  });

  it("sees through quoting: a deny matches the words bash runs, wherever the command is", async () => {
    const deny: ApprovalRule[] = [{ action: "deny", command: ["git", "push"] }];
    for (const script of [
      "git push 'origin;main'",
      'git push "origin&&main"',
      "g'it' pu\"sh\"",
      "gi\\t push",
      "ls\ngit push",
      "echo $(git push)",
      "echo `git push`",
      "cat <(git push)",
      "(git push)",
      "{ git push; }",
      "if true; then git push; fi",
      "git push &",
      "FOO=1 git push",
      "env A=1 git push",
      "sudo -u me git push",
      "timeout 5 git push",
      "xargs -n1 git push < list",
      "bash -c 'git push'",
      "env bash -c 'git push'",
      "sudo -u me /bin/sh -c 'git push'",
      "sh -c \"bash -lc 'git push'\"",
      "eval git push",
      "bash -c \"$CMD\"",
      "git pu{sh,} origin",
      "git $SUB origin",
      "git -C . push",
      "git --git-dir=x -c a=b push",
      "/usr/bin/git push",
      "coproc git push",
      "find . -exec git push ;",
      "find . -name x -execdir /usr/bin/git push +",
      "git pu\\\nsh",
      "trap 'git push' EXIT",
      "alias g=git\ng push",
      "$GIT push",
      "\"$SHELL\" -c 'git push'",
      "cat <<EOF\n$(git push)\nEOF",
    ]) {
      expect(await verdict(deny, script), script).toBe("deny");
    }
    expect(await verdict(deny, "git pull 'push'")).toBeNull();
    expect(await verdict(deny, "git -C push pull")).toBeNull();
    expect(await verdict(deny, "find . -name push")).toBeNull();
    expect(await verdict(deny, "echo 'git push'")).toBeNull();
  });

  it("allows by rule only a plain script: no substitution, redirection, background job or nesting", async () => {
    const rules: ApprovalRule[] = [{ action: "allow", command_regex: "cargo (build|test)( .*)?" }];
    expect(await verdict(rules, "cargo test --all && cargo build")).toBe("allow");
    for (const script of [
      "cargo test $(touch x)",
      "cargo test `touch x`",
      "cargo test & touch x",
      "cargo test > x",
      "cargo test < x",
      "cargo test <(touch x)",
      "cargo test\ntouch x",
      "cargo test; touch x",
      "X=1 cargo test",
      "cargo test $HOME",
      "cargo test *",
      "bash -c 'cargo test'",
      "cargo test <<EOF\nx\nEOF",
    ]) {
      expect(await verdict(rules, script), script).not.toBe("allow");
    }
  });

  it("matches a whole-argv prefix learned for a compound script, only for that script", async () => {
    const script = "echo ok && touch done.txt";
    const learned: ApprovalRule[] = [{ action: "allow", command: bash(script) }];
    expect(await verdict(learned, script)).toBe("allow");
    expect(await verdict(learned, "echo ok && touch other.txt")).toBeNull();
  });

  it("matches patch paths with real globs relative to the cwd: **, braces, classes, dotfiles", () => {
    const rules: ApprovalRule[] = [
      { action: "deny", path: "**/.env" },
      { action: "deny", path: "**/*.{pem,key}" },
      { action: "ask", path: "config/[ab].toml" },
      { action: "allow", path: "src/**/*.ts" },
      { action: "ask", path: "package.json" },
    ];
    expect(pathVerdict(rules, ["src/a/b.ts", "src/c.ts"])?.action).toBe("allow");
    expect(pathVerdict(rules, ["src/a.ts", "config/.env"])?.action).toBe("deny");
    expect(pathVerdict(rules, [".env"])?.action).toBe("deny");
    expect(pathVerdict(rules, ["certs/server.pem"])?.action).toBe("deny");
    expect(pathVerdict(rules, ["id.key"])?.action).toBe("deny");
    expect(pathVerdict(rules, ["config/a.toml"])?.action).toBe("ask");
    expect(pathVerdict(rules, ["config/c.toml"])).toBeNull();
    expect(pathVerdict(rules, ["config/ab.toml"])).toBeNull();
    expect(pathVerdict(rules, ["src/a.ts", "package.json"])?.action).toBe("ask");
    expect(pathVerdict(rules, ["src/a.js"])).toBeNull();
  });

  it("rejects rules with no matcher, two matchers or a bad regex, naming the entry", () => {
    const problems = (rules: unknown[]) => Config.safeParse({ approval_rules: rules }).error?.issues.map((issue) => issue.path.join(".")) ?? [];
    expect(problems([{ action: "allow" }])).toEqual(["approval_rules.0"]);
    expect(problems([{ action: "allow", command: ["ls"] }, { action: "deny", command: ["x"], path: "y" }])).toEqual(["approval_rules.1"]);
    expect(problems([{ action: "ask", command_regex: "(" }])).toEqual(["approval_rules.0.command_regex"]);
    expect(problems([{ action: "maybe", command: ["ls"] }])).toEqual(["approval_rules.0.action"]);
  });
});
