import { describe, expect, it } from "vitest";
import { commandVerdict, pathVerdict } from "../../src/agent/approvalRules.js";
import { Config, type ApprovalRule } from "../../src/config/schema.js";

const bash = (script: string) => ["/bin/bash", "-lc", script];
const verdict = (rules: ApprovalRule[], script: string) => commandVerdict(rules, bash(script), script)?.action ?? null;

describe("approval rules", () => {
  it("matches argv prefixes per simple command: deny anywhere refuses, allow needs every part", () => {
    const rules: ApprovalRule[] = [
      { action: "deny", command: ["git", "push"] },
      { action: "allow", command: ["npm", "test"] },
      { action: "ask", command: ["rm"] },
    ];
    expect(verdict(rules, "git push origin main")).toBe("deny");
    expect(verdict(rules, "npm test && git push")).toBe("deny");
    expect(verdict(rules, "npm test -- --run")).toBe("allow");
    expect(verdict(rules, "npm test && npm test")).toBe("allow");
    expect(verdict(rules, "npm test && ls")).toBeNull();
    expect(verdict(rules, "npm test; rm -rf build")).toBe("ask");
    expect(verdict(rules, "gitpush")).toBeNull();
  });

  it("takes the first matching rule, and anchors regexes", () => {
    const rules: ApprovalRule[] = [
      { action: "allow", command_regex: "cargo (build|test)( .*)?" },
      { action: "deny", command: ["cargo"] },
    ];
    expect(verdict(rules, "cargo test --all")).toBe("allow");
    expect(verdict(rules, "cargo publish")).toBe("deny");
    expect(verdict(rules, "xcargo test")).toBeNull();
  });

  it("matches patch paths with globs relative to the cwd", () => {
    const rules: ApprovalRule[] = [
      { action: "deny", path: "**/.env" },
      { action: "allow", path: "src/**/*.ts" },
      { action: "ask", path: "package.json" },
    ];
    expect(pathVerdict(rules, ["src/a/b.ts", "src/c.ts"])?.action).toBe("allow");
    expect(pathVerdict(rules, ["src/a.ts", "config/.env"])?.action).toBe("deny");
    expect(pathVerdict(rules, [".env"])?.action).toBe("deny");
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
