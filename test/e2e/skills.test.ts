import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { launch, runTurn, startThread, tempDir } from "../support/turnHarness.js";

function skill(root: string, folder: string, frontMatter: string): string {
  const file = path.join(root, folder, "SKILL.md");
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `---\n${frontMatter}\n---\n\n# Instructions\nDo the thing.\n`);
  return file;
}

describe("skills", () => {
  it("finds user and repo skills, offers the enabled ones to the model, switches them off, and adds extra roots", async () => {
    const home = tempDir("aas-skills-home-");
    const repo = tempDir("aas-skills-repo-");
    mkdirSync(path.join(repo, ".git"));
    const deploy = skill(path.join(home, "skills"), "deploy", "name: deploy\ndescription: Deploy the app to staging.");
    const lint = skill(path.join(repo, ".agents", "skills"), "lint", 'name: lint\ndescription: "Run the linters the repo uses."');
    const broken = skill(path.join(repo, ".agents", "skills"), "broken", "name: broken");
    const answers = [1, 2].map((n) => ({ items: [{ type: "message" as const, text: `Answer ${n}.` }] }));
    const { server, mock } = await launch(answers, { home });

    const listed = (await server.request("skills/list", { cwds: [repo] })).result.data[0];
    expect(listed.skills).toEqual([
      { name: "deploy", description: "Deploy the app to staging.", path: deploy, scope: "user", enabled: true },
      { name: "lint", description: "Run the linters the repo uses.", path: lint, scope: "repo", enabled: true },
    ]);
    expect(listed.errors).toEqual([{ path: broken, message: "SKILL.md needs front matter with a name and a description" }]);

    const threadId = await startThread(server, { cwd: repo });
    await runTurn(server, threadId, "Ship it.");
    const offered = JSON.stringify(mock.requests[0]!.body.input);
    expect(offered).toContain("deploy: Deploy the app to staging.");
    expect(offered).toContain(`lint: Run the linters the repo uses. (file: ${lint})`);

    expect((await server.request("skills/config/write", { path: deploy, enabled: false })).result).toEqual({ effectiveEnabled: false });
    expect(readFileSync(path.join(home, "config.toml"), "utf8")).toContain(deploy);
    expect((await server.request("skills/list", { cwds: [repo] })).result.data[0].skills[0]).toMatchObject({ name: "deploy", enabled: false });
    await runTurn(server, threadId, "Again.");
    expect(JSON.stringify(mock.requests[1]!.body.input)).not.toContain("Deploy the app to staging.");

    const extra = tempDir("aas-skills-extra-");
    skill(extra, "notes", "name: notes\ndescription: Keep release notes.");
    expect((await server.request("skills/extraRoots/set", { extraRoots: [extra] })).result).toEqual({});
    const names = (await server.request("skills/list", { cwds: [repo] })).result.data[0].skills.map((entry: any) => entry.name);
    expect(names).toEqual(["deploy", "lint", "notes"]);
  });
});
