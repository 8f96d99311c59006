import { parse } from "smol-toml";
import { describe, expect, it } from "vitest";
import { editToml } from "../../src/config/tomlEdit.js";
import { classifyLines } from "../../src/config/tomlLines.js";

/** `text` edited to what `change` makes of its table, as ConfigStore does. */
async function edit(text: string, change: (table: Record<string, any>) => void): Promise<string> {
  const table = parse(text) as Record<string, any>;
  change(table);
  const edited = await editToml(text, table);
  expect(JSON.parse(JSON.stringify(edited.table))).toEqual(JSON.parse(JSON.stringify(table)));
  return edited.text;
}

const lines = (...text: string[]) => text.join("\n") + "\n";

describe("editToml", () => {
  const file = lines(
    "# Written by hand.",
    "",
    'model = "gpt-5.5"   # the usual one',
    'model_reasoning_effort = "medium"  # high for big refactors',
    "tools.web_search = true  # dotted key",
    'shell_environment_policy = { inherit = "core", set = { FOO = "1" } }  # inline table',
    'developer_instructions = """',
    "Be brief.",
    "# Part of the string, not a comment.",
    "[not a header]",
    '"""',
    "",
    "[sandbox_workspace_write]",
    "# Roots the sandbox may write besides the cwd.",
    'writable_roots = ["/tmp/cache"]',
    "",
    "# Servers",
    '[mcp_servers."my server"]',
    'command = "npx"',
    'args = ["-y", "server"]',
    "",
    "# Skills switched off",
    "[[skills.config]]",
    'path = "/skills/deploy/SKILL.md"',
    "enabled = false",
    "",
    "# end",
  );

  it("writes only the values that change, wherever and however they are written", async () => {
    const edited = await edit(file, (table) => {
      table.model = "gpt-5.5-codex";
      delete table.model_reasoning_effort;
      table.tools.web_search = false;
      table.shell_environment_policy.set.BAR = "2";
      table.developer_instructions = "Be kind.\n# Still the string.\n";
      table.sandbox_workspace_write.network_access = true;
      table.mcp_servers["my server"].args.push("--verbose");
      table.mcp_servers["my server"].enabled = false;
      table.skills.config.push({ name: "lint", enabled: false });
      table.projects = { "/work/a.b": { trust_level: "trusted" } };
    });
    expect(edited).toBe(
      lines(
        "# Written by hand.",
        "",
        // Each written line keeps the spaces before its comment (toml-patch would align them all).
        'model = "gpt-5.5-codex"   # the usual one',
        "tools.web_search = false  # dotted key",
        'shell_environment_policy = { inherit = "core", set = { FOO = "1", BAR = "2" } }  # inline table',
        'developer_instructions = """',
        "Be kind.",
        "# Still the string.",
        '"""',
        "",
        "[sandbox_workspace_write]",
        "# Roots the sandbox may write besides the cwd.",
        'writable_roots = ["/tmp/cache"]',
        "network_access = true",
        "",
        // New keys of a table go above the comment that introduces the next one.
        "# Servers",
        '[mcp_servers."my server"]',
        'command = "npx"',
        'args = ["-y", "server", "--verbose"]',
        "enabled = false",
        "",
        "# Skills switched off",
        "[[skills.config]]",
        'path = "/skills/deploy/SKILL.md"',
        "enabled = false",
        "",
        "[[skills.config]]",
        'name = "lint"',
        "enabled = false",
        "",
        // A new table goes at the end as a section, before the comments closing the file.
        '[projects."/work/a.b"]',
        'trust_level = "trusted"',
        "",
        "# end",
      ),
    );
  });

  it("leaves the text as it is when nothing changes", async () => {
    expect(await edit(file, () => {})).toBe(file);
    expect(await edit("a = 1   # one\nbb = 2  # two\n", () => {})).toBe("a = 1   # one\nbb = 2  # two\n");
  });

  it("puts back the comment alignment of lines it does not write", async () => {
    // toml-patch aligns the comments of neighbouring lines whenever it writes one of them.
    expect(await edit(lines("a = 1   # one", "bb = { x = 1 }  # two", "c = 3"), (table) => void (table.c = 4))).toBe(
      lines("a = 1   # one", "bb = { x = 1 }  # two", "c = 4"),
    );
  });

  it("keeps the comments above a header with it, and drops them with it", async () => {
    const tables = lines("[a]", "x = 1", "", "# general notes", "", "# about b", "[b]", "y = 2", "", "# about c", "[c]", "z = 3");
    expect(await edit(tables, (table) => void (table.a.w = 0))).toBe(
      lines("[a]", "x = 1", "w = 0", "", "# general notes", "", "# about b", "[b]", "y = 2", "", "# about c", "[c]", "z = 3"),
    );
    // A comment set off from the header by a blank line is not the header's own: it stays.
    expect(await edit(tables, (table) => delete table.b)).toBe(lines("[a]", "x = 1", "", "# general notes", "", "# about c", "[c]", "z = 3"));
    const skills = lines(
      'model = "m"',
      "",
      "# skills",
      "[[skills.config]]",
      'path = "/a"',
      "enabled = false",
      "",
      "# second",
      "[[skills.config]]",
      'name = "b"',
      "enabled = false",
      "",
      "# tui",
      "[tui]",
      "x = 1",
    );
    expect(await edit(skills, (table) => table.skills.config.shift())).toBe(
      lines('model = "m"', "", "# skills", "[[skills.config]]", 'name = "b"', "enabled = false", "", "# tui", "[tui]", "x = 1"),
    );
    expect(await edit(skills, (table) => delete table.skills)).toBe(lines('model = "m"', "", "# tui", "[tui]", "x = 1"));
  });

  it("adds new tables as sections at the end, and inline where no section can go", async () => {
    expect(
      await edit(lines("# mine", 'model = "m"', "", '[mcp_servers."one"]', 'command = "a"'), (table) => {
        table.mcp_servers.two = { command: "b", env: { K: "v" } };
        table.model_providers = { gw: { name: "GW", base_url: "http://127.0.0.1:9999/v1" } };
      }),
    ).toBe(
      lines(
        "# mine",
        'model = "m"',
        "",
        '[mcp_servers."one"]',
        'command = "a"',
        "",
        "[mcp_servers.two]",
        'command = "b"',
        "",
        "[mcp_servers.two.env]",
        'K = "v"',
        "",
        "[model_providers.gw]",
        'name = "GW"',
        'base_url = "http://127.0.0.1:9999/v1"',
      ),
    );
    // An inline table is closed to sections: the new table is written inside it.
    expect(await edit("set = { A = 1 }  # inline\n", (table) => void (table.set.sub = { B: 2 }))).toBe("set = { A = 1, sub = { B = 2 } }  # inline\n");
    expect(await edit("", (table) => Object.assign(table, { model: "m", skills: { config: [{ name: "a", enabled: false }] } }))).toBe(
      lines('model = "m"', "", "[[skills.config]]", 'name = "a"', "enabled = false"),
    );
  });

  it("keeps the file's line endings, and its lack of a last newline", async () => {
    expect(await edit("a = 1\r\n\r\n# t\r\n[t]\r\nx = 1  # c\r\n", (table) => Object.assign(table, { a: 2, u: { k: 1 } }))).toBe(
      "a = 2\r\n\r\n# t\r\n[t]\r\nx = 1  # c\r\n\r\n[u]\r\nk = 1\r\n",
    );
    expect(await edit("a = 1\n# end", (table) => void (table.b = 2))).toBe("a = 1\nb = 2\n# end");
  });

  it("writes the file from scratch when no patch reads back as the new table", async () => {
    // toml-patch cannot turn an array of tables into a mixed array: its text would read back wrong.
    expect(await edit("# gone\n[[a]]\nb = 1\n", (table) => table.a.push(3))).toBe("a = [ { b = 1 }, 3 ]\n");
  });
});

describe("classifyLines", () => {
  it("finds headers, comments and blank lines outside strings and multi-line values", async () => {
    const text = ['a = """x # not a comment', "# in the string", "[in the string]", 'z""" # real', "b = [", "  [1], # c", "]", "", "[t]  # h", "# c"];
    expect(classifyLines(text)).toEqual([
      { kind: "other", commentAt: null },
      { kind: "other", commentAt: null },
      { kind: "other", commentAt: null },
      { kind: "other", commentAt: 5 },
      { kind: "other", commentAt: null },
      { kind: "other", commentAt: 7 },
      { kind: "other", commentAt: null },
      { kind: "blank", commentAt: null },
      { kind: "header", commentAt: 5 },
      { kind: "comment", commentAt: 0 },
    ]);
    expect(classifyLines(["s = 'C:\\dir#1'  # path", 'e = "a \\" # b"', "l = '''", "''''", "h = 1 # after"]).map((line) => line.commentAt)).toEqual([
      16,
      null,
      null,
      null,
      6,
    ]);
  });
});
