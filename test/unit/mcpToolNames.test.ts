import { describe, expect, it } from "vitest";
import { qualifiedToolName, serverNameProblem } from "../../src/agent/mcp/toolNames.js";

describe("MCP tool names", () => {
  it("are mcp__<server>__<tool>, other characters replaced by _", () => {
    expect(qualifiedToolName("calc", "add")).toBe("mcp__calc__add");
    expect(qualifiedToolName("docs", "search.pages v2")).toBe("mcp__docs__search_pages_v2");
  });

  it("stay within 64 characters, long ones ending in the SHA-1 of the full name", () => {
    const long = qualifiedToolName("my_server", "extremely_lengthy_function_name_that_absolutely_surpasses_all_reasonable_limits");
    expect(long).toHaveLength(64);
    expect(long).toMatch(/^mcp__my_server__extremel[0-9a-f]{40}$/);
    const other = qualifiedToolName("my_server", "yet_another_extremely_lengthy_function_name_that_absolutely_surpasses_all_reasonable_limits");
    expect(other).not.toBe(long);
    // Names that sanitize alike but differ stay apart once hashed.
    expect(qualifiedToolName("s", `${"x".repeat(60)}.a`)).not.toBe(qualifiedToolName("s", `${"x".repeat(60)}_a`));
  });

  it("take server names of letters, digits, _ and - only", () => {
    expect(serverNameProblem("calc-2_b")).toBeNull();
    expect(serverNameProblem("my server")).toBe("Invalid MCP server name 'my server': must match pattern ^[a-zA-Z0-9_-]+$");
  });
});
