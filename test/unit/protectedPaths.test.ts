import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseGitConfig } from "../../src/agent/boundary/gitConfig.js";
import { protectedPaths } from "../../src/agent/boundary/protectedPaths.js";
import { tempDir } from "../support/turnHarness.js";

describe("git's config, read as git reads it", () => {
  it("takes sections, subsections, quotes, escapes, comments and continuation lines", () => {
    const text = [
      "# a comment",
      "[core]",
      "\thooksPath = .githooks ; trailing comment",
      '\tfsmonitor = "./tools/fs mon.sh"',
      '[diff "evil"]',
      "\ttextconv = ./conv.sh \\",
      "  --flag",
      "[Alias]",
      '\tx = !sh -c \\"echo\\" # run',
      "[include]",
      "path = extra",
      "bare",
      "[remote.origin]",
      "\turl = x",
    ].join("\n");
    expect(parseGitConfig(text, "f").map(({ key, value }) => [key, value])).toEqual([
      ["core.hookspath", ".githooks"],
      ["core.fsmonitor", "./tools/fs mon.sh"],
      ["diff.evil.textconv", "./conv.sh   --flag"],
      ["alias.x", '!sh -c "echo"'],
      ["include.path", "extra"],
      ["include.bare", "true"],
      ["remote.origin.url", "x"],
    ]);
  });
});

describe("protected paths", () => {
  it("hold the names at each root, and what git and the login shell run, existing or not; nothing outside the roots", () => {
    const root = tempDir("aas-protected-");
    const home = path.join(root, "home");
    const repo = path.join(root, "repo");
    const outside = tempDir("aas-protected-out-");
    mkdirSync(path.join(repo, ".git"), { recursive: true });
    mkdirSync(home);
    writeFileSync(
      path.join(repo, ".git", "config"),
      [
        "[core]",
        "\thooksPath = .husky/_",
        "\tfsmonitor = tools/fsmon.sh",
        '[filter "lfs"]',
        "\tclean = git-lfs clean -- %f",
        '[diff "evil"]',
        "\ttextconv = sh ./scripts/conv.sh",
        "[alias]",
        "\tshow-x = !./bin/x --y",
        "\tlog1 = log -1",
        "[include]",
        "\tpath = ../.gitconfig-project",
        `\tpath = ${outside}/elsewhere`,
      ].join("\n"),
    );
    writeFileSync(path.join(repo, ".gitmodules"), '[submodule "lib"]\n\tpath = lib/mod\n');
    const worktree = path.join(root, "wt");
    mkdirSync(path.join(root, "gitdirs", "wt"), { recursive: true });
    mkdirSync(worktree);
    writeFileSync(path.join(worktree, ".git"), "gitdir: ../gitdirs/wt\n");
    writeFileSync(path.join(root, "gitdirs", "wt", "commondir"), "../../repo/.git\n");
    const found = protectedPaths([repo, worktree, home], { HOME: home });
    const relative = found.map((entry) => path.relative(root, entry)).sort();
    expect(relative).toEqual(
      [
        // By name at every root.
        "repo/.git", "repo/.agents", "repo/.codex", "wt/.git", "wt/.agents", "wt/.codex", "home/.git", "home/.agents", "home/.codex",
        // What the repository's git config names (its own files too), and its submodule.
        "repo/.git/config", "repo/.git/config.worktree",
        "repo/.husky/_", "repo/tools/fsmon.sh", "repo/scripts/conv.sh", "repo/bin/x", "repo/.gitconfig-project", "repo/lib/mod/.git",
        // The linked worktree runs the same config, its relative paths from its own top.
        "wt/.husky/_", "wt/tools/fsmon.sh", "wt/scripts/conv.sh", "wt/bin/x",
        // The login shell's files and git's global config in a home that is a root.
        "home/.bash_profile", "home/.bash_login", "home/.profile", "home/.bashrc", "home/.bash_logout", "home/.gitconfig", "home/.config/git/config",
      ].sort(),
    );
    // The worktree's git directory is outside those roots, so read-only already; in a root, it is protected by target.
    expect(protectedPaths([worktree, path.join(root, "gitdirs")], {}).map((entry) => path.relative(root, entry))).toContain("gitdirs/wt");
    expect(found.some((entry) => entry.startsWith(outside))).toBe(false);
  });
});

describe("isInside", () => {
  it("counts a name that starts with .. as below the root, and only .. itself and above as outside", async () => {
    const { isInside } = await import("../../src/workspace/roots.js");
    expect(isInside("/ws/..hooks/pre-commit", "/ws")).toBe(true);
    expect(isInside("/ws", "/ws")).toBe(true);
    expect(isInside("/ws/../x", "/ws")).toBe(false);
    expect(isInside("/other", "/ws")).toBe(false);
    expect(isInside("/ws2", "/ws")).toBe(false);
  });
});
